import { Invalid } from '../refusals.ts';

/**
 * The OIDC client a workspace registered at its identity provider (issue 29): its id, and its
 * secret sealed for the workspace (KMS, encryption context `sso_workspace=<workspace id>`), as
 * webhook endpoints' signing secrets are. The secret is never answered nor logged; a reply says
 * only that one is set.
 */
export interface OidcClient {
  id: string;
  sealedSecret: string;
}

/** What a save did with the client's secret, for the audit trail: a new one, the stored one kept, or no client. */
export type ClientSecretChange = 'set' | 'kept' | 'none';

/** The client settings of a PUT, as the use case takes them (named as the body names them when refused). */
export interface ClientSettings {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  enforce?: boolean | undefined;
  /** Just-in-time membership for people signing in through the provider. */
  ssoJit?: boolean | undefined;
}

/**
 * What the body alone must hold: a secret comes with its client id, and enforcing single sign-on
 * comes with a client (without one, nobody at the domain could sign in at all: codes are refused
 * and the identity provider has no client to answer).
 */
export function checkClientSettings(settings: ClientSettings): void {
  if (settings.clientSecret !== undefined && settings.clientId === undefined) {
    throw new Invalid('A client secret comes with its client id.', [{ field: 'client_secret', message: 'needs client_id' }]);
  }
  if (settings.ssoJit === true && settings.clientId === undefined) {
    throw new Invalid('Members joining as they sign in through single sign-on needs the OIDC client they sign in through.', [
      { field: 'sso_jit', message: 'needs client_id (and its client_secret)' },
    ]);
  }
  if (settings.enforce === true && settings.clientId === undefined) {
    throw new Invalid('Enforcing single sign-on needs the OIDC client people sign in through.', [
      { field: 'enforce', message: 'needs client_id (and its client_secret)' },
    ]);
  }
}

/**
 * The client a save writes, over the one stored (`stored`, read with the directory): the body's
 * client with its new secret (sealed already, `sealedSecret`); the body's client without a secret
 * keeps the stored secret when the client id is the stored one, and is refused otherwise (a secret
 * belongs to its client); no client id, no client (PUT replaces the settings; only the secret, which
 * is never shown back, can be kept by leaving it out).
 */
export function clientToSave(
  settings: ClientSettings,
  sealedSecret: string | null,
  stored: OidcClient | null,
): { client: OidcClient | null; secret: ClientSecretChange } {
  if (settings.clientId === undefined) return { client: null, secret: 'none' };
  if (sealedSecret !== null) return { client: { id: settings.clientId, sealedSecret }, secret: 'set' };
  if (stored?.id === settings.clientId) return { client: { ...stored }, secret: 'kept' };
  throw new Invalid('A new client id needs its client secret.', [
    {
      field: 'client_secret',
      message: stored ? 'required: the stored secret belongs to another client_id' : 'required: no secret is stored for this client_id',
    },
  ]);
}
