import java.lang.reflect.Field;

/**
 * DynamoDB Local bound to 127.0.0.1 only (issue 26, item 6): its own main binds Jetty to every
 * interface (DynamoDBProxyServer does `new Server(port)`) and has no host option. This builds the
 * server from the same command line, sets each connector's host before it starts, and starts it.
 * Its telemetry is never configured, so nothing is sent (-disableTelemetry is passed too).
 *
 * Reflection only, no compile-time use of the jar's classes, so it compiles in a moment against
 * the JDK alone (local/dynamodbJava.ts compiles it once into node_modules/.cache/).
 */
class DynamoDBLoopback {
  public static void main(String[] args) throws Exception {
    Class<?> runner = Class.forName("software.amazon.dynamodb.services.local.main.ServerRunner");
    Object proxy = runner.getMethod("createServerFromCommandLineArgs", String[].class).invoke(null, (Object) args);
    Field field = proxy.getClass().getDeclaredField("server");
    field.setAccessible(true);
    Object server = field.get(proxy);
    Object[] connectors = (Object[]) server.getClass().getMethod("getConnectors").invoke(server);
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local changed: its Jetty server has no connector to bind");
    for (Object connector : connectors) {
      connector.getClass().getMethod("setHost", String.class).invoke(connector, "127.0.0.1");
    }
    proxy.getClass().getMethod("start").invoke(proxy);
  }
}
