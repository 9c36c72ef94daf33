// Single sign-on through a workspace's identity provider (issue 29): a sign-in under way, and a
// signed-in identity waiting for its one-time code's exchange. Both are taken once (a conditional
// delete) and go by TTL when nobody takes them.

/** A sign-in under way (`SSO_STATE#<state id>` / `STATE`): its PKCE verifier and nonce never leave the table. Written by ssoSignIns.ts. */
export const ssoStateKey = (stateId: string) => ({ pk: `SSO_STATE#${stateId}`, sk: 'STATE' });
export interface SsoStateItem {
  pk: string;
  sk: string;
  type: 'sso_state';
  workspace_id: string;
  email: string;
  return_to: string;
  code_verifier: string;
  nonce: string;
  client_challenge?: string;
  landing: string;
  expires_at: number;
  ttl: number;
}

/** A one-time code's exchange (`SSO_EXCHANGE#<code hash>` / `EXCHANGE`). Written by ssoSignIns.ts. */
export const ssoExchangeKey = (codeHash: string) => ({ pk: `SSO_EXCHANGE#${codeHash}`, sk: 'EXCHANGE' });
export interface SsoExchangeItem {
  pk: string;
  sk: string;
  type: 'sso_exchange';
  user_id: string;
  workspace_id: string;
  client_challenge?: string;
  expires_at: number;
  ttl: number;
}
