/**
 * A browser's part in a sign-in at the local provider, without a browser (tests, scripts): follow
 * the authorization URL's redirects with the provider's cookies kept, type the address on the
 * login page, follow on until the provider sends the browser away to the client.
 */

/** RFC 6265 §5.1.4: the request path up to its last `/`, or `/`. */
const defaultPath = (path: string) => (path.lastIndexOf('/') <= 0 ? '/' : path.slice(0, path.lastIndexOf('/')));

/** The cookies a browser keeps for one origin, by name and path (RFC 6265's path match; no domains, no expiry but deletion). */
class CookieJar {
  readonly #cookies = new Map<string, { name: string; value: string; path: string }>();

  take(response: Response, url: URL): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';');
      const equals = pair.indexOf('=');
      if (equals < 1) continue;
      const name = pair.slice(0, equals).trim();
      const value = pair.slice(equals + 1).trim();
      const attribute = (wanted: string) =>
        attributes
          .map((part) => part.trim())
          .find((part) => part.toLowerCase().startsWith(`${wanted}=`))
          ?.slice(wanted.length + 1);
      const path = attribute('path') || defaultPath(url.pathname);
      const expires = attribute('expires');
      const maxAge = attribute('max-age');
      const gone =
        value === '' || (expires !== undefined && Date.parse(expires) <= Date.now()) || (maxAge !== undefined && Number(maxAge) <= 0);
      const key = `${path}\u0000${name}`;
      if (gone) this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path });
    }
  }

  header(url: URL): string {
    const matches = (path: string) => url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`);
    return [...this.#cookies.values()]
      .filter((cookie) => matches(cookie.path))
      .sort((a, b) => b.path.length - a.path.length)
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }
}

/**
 * Signs `email` in at the provider of `oidc` for `authorizationUrl` (as built by the client, e.g.
 * openid-client's `buildAuthorizationUrl`), as a browser with no session there would: `GET` it,
 * follow the provider's redirects to its login page (`/interaction/<uid>`), `POST` the address to
 * `/interaction/<uid>/login`, follow the redirects on (consent is automatic) until one leaves the
 * provider. Answers that redirect: the client's `redirect_uri` with `code`, `state` and `iss`, or
 * with `error` when the provider refused the request (no PKCE, an unknown redirect URI…). Throws
 * when the provider answers anything else (an error page, the login page refusing the address).
 */
export async function signInAt(oidc: { origin: string }, authorizationUrl: URL | string, email: string): Promise<URL> {
  const jar = new CookieJar();
  const origin = new URL(oidc.origin).origin;
  let url = new URL(authorizationUrl);
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 12; step += 1) {
    if (url.origin !== origin) return url;
    const cookie = jar.header(url);
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        ...(cookie ? { cookie } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: form.toString() } : {}),
    });
    jar.take(response, url);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      form = undefined;
      continue;
    }
    const text = await response.text();
    if (response.status === 200 && !form && /^\/interaction\/[\w-]+$/.test(url.pathname)) {
      url = new URL(`${url.pathname}/login`, url);
      form = new URLSearchParams({ email });
      continue;
    }
    throw new Error(
      `The local identity provider answered ${response.status} at ${url.pathname}: ${text
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 300)}`,
    );
  }
  throw new Error('The local identity provider redirected more than 12 times.');
}
