import * as oidc from 'openid-client';
import { sha256Base64Url } from '../ids.ts';
import { ssoLimits } from '../limits.ts';
import type { CodeRedemption, RelyingParty, SsoClient } from '../domain/sso/signInPorts.ts';

/**
 * The relying party of single sign-on (issue 29) on `openid-client` (certified, by the author of
 * the `oidc-provider` the local runs use; ADR 0172): discovery, the authorization URL, and the
 * code's exchange with the ID token's validation, which openid-client (oauth4webapi) does as
 * OpenID Connect Core says: issuer, audience, expiry and issue time, nonce, the signature against
 * the issuer's JWKS with an algorithm the issuer advertises (never `none`), and RFC 9207's `iss`
 * in the authorization response (required when the issuer says it sends one). The client
 * authenticates at the token endpoint as discovery allows: HTTP Basic, else the form's post.
 */

export interface RelyingPartySettings {
  /** Local runs only: the local identity provider is `http://127.0.0.1:<port>`. */
  allowHttp: boolean;
  timeoutSeconds?: number;
}

/** How long a client's discovered configuration is used before it is discovered again. */
const configurationSeconds = 600;
/** An ID token issued further in the future than this is refused (clocks apart). */
const iatSkewSeconds = 300;

export function oidcRelyingParty(settings: RelyingPartySettings): RelyingParty {
  const timeout = settings.timeoutSeconds ?? ssoLimits.providerCallSeconds;
  const cache = new Map<string, { at: number; configuration: Promise<oidc.Configuration> }>();

  /** The client's configuration: discovered once for a while, per issuer, client id and secret. */
  function configurationOf(client: SsoClient): Promise<oidc.Configuration> {
    const key = `${client.issuer}\n${client.clientId}\n${sha256Base64Url(client.clientSecret)}`;
    const held = cache.get(key);
    if (held && Date.now() - held.at < configurationSeconds * 1000) return held.configuration;
    const configuration = discover(client).catch((error: unknown) => {
      cache.delete(key);
      throw error;
    });
    cache.set(key, { at: Date.now(), configuration });
    return configuration;
  }

  async function discover(client: SsoClient): Promise<oidc.Configuration> {
    const insecure = settings.allowHttp && client.issuer.startsWith('http:');
    const discovered = await oidc.discovery(
      new URL(client.issuer),
      client.clientId,
      undefined,
      oidc.ClientSecretBasic(client.clientSecret),
      {
        timeout,
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      },
    );
    const methods = discovered.serverMetadata().token_endpoint_auth_methods_supported;
    // RFC 8414: absent, the endpoint takes client_secret_basic.
    const configuration =
      methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
        ? new oidc.Configuration(discovered.serverMetadata(), client.clientId, undefined, oidc.ClientSecretPost(client.clientSecret))
        : discovered;
    configuration.timeout = timeout;
    if (insecure) oidc.allowInsecureRequests(configuration);
    // The ID token's signature against the issuer's JWKS: openid-client skips it for a token from the
    // token endpoint (OpenID Connect Core §3.1.3.7 (6) lets TLS stand in) unless told to check it.
    oidc.enableNonRepudiationChecks(configuration);
    return configuration;
  }

  return {
    async authorizationUrl(client, request) {
      let configuration: oidc.Configuration;
      try {
        configuration = await configurationOf(client);
      } catch {
        return null;
      }
      return oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: request.redirectUri,
        scope: 'openid email',
        response_type: 'code',
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
        state: request.state,
        nonce: request.nonce,
      });
    },

    async redeem(client, callback, checks): Promise<CodeRedemption> {
      // openid-client sends the callback's own origin and path as the token request's redirect_uri.
      if (`${callback.origin}${callback.pathname}` !== checks.redirectUri) return { outcome: 'refused', reason: 'redirect_uri' };
      try {
        const configuration = await configurationOf(client);
        const tokens = await oidc.authorizationCodeGrant(configuration, callback, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedNonce: checks.nonce,
          expectedState: checks.state,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims) return { outcome: 'refused', reason: 'no_id_token' };
        // openid-client leaves the issue time to the client in the code flow: one from the future
        // (past a clock's skew) is a token nobody should have yet.
        if (typeof claims.iat !== 'number' || claims.iat * 1000 > Date.now() + iatSkewSeconds * 1000)
          return { outcome: 'refused', reason: 'iat' };
        return {
          outcome: 'identity',
          identity: {
            subject: claims.sub,
            email: typeof claims.email === 'string' ? claims.email : null,
            emailVerified: typeof claims.email_verified === 'boolean' ? claims.email_verified : undefined,
          },
        };
      } catch (error) {
        return outcomeOf(error);
      }
    },
  };
}

/** A failure as the domain tells them apart: the provider not answering, or anything refused (its code kept for the log). */
function outcomeOf(error: unknown): CodeRedemption {
  const name = (error as Error)?.name;
  const cause = (error as { cause?: { name?: string; code?: string } })?.cause;
  if (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    cause?.name === 'TimeoutError' ||
    (error instanceof TypeError && /fetch failed/.test(error.message))
  ) {
    return { outcome: 'unavailable', reason: name === 'TypeError' ? 'network' : 'timeout' };
  }
  // The token endpoint's own trouble (a 5xx) is its not answering, not a refusal of this sign-in.
  const status =
    (error as { status?: number; cause?: { status?: number } })?.status ?? (error as { cause?: { status?: number } })?.cause?.status;
  if (typeof status === 'number' && status >= 500) return { outcome: 'unavailable', reason: `http_${status}` };
  const code = (error as { code?: string; error?: string })?.error ?? (error as { code?: string })?.code ?? name ?? 'refused';
  return { outcome: 'refused', reason: String(code).slice(0, 64) };
}
