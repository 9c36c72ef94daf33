// Chat (Slack): installations, install states used, and notices' marks. A secret's chat
// subscription is on the secret's own item (secrets.ts), so the stream carries it with the event.

/**
 * A workspace's installation (`CHAT_TEAM#<team id>` / `INSTALLATION`, the bot token sealed; a
 * revoked one keeps its item, `removed` and without its token, until the team installs again):
 * written by the installation store (chatInstallations.ts).
 */
export const chatInstallationKey = (teamId: string) => ({ pk: `CHAT_TEAM#${teamId}`, sk: 'INSTALLATION' });
export interface ChatInstallationItem {
  pk: string;
  sk: string;
  type: 'chat_installation';
  team_id: string;
  team_name: string;
  sealed_bot_token?: string;
  bot_user_id: string;
  scopes: string[];
  installer_user_id: string;
  installer_chat_user_id: string;
  installed_at: number;
  /** With token rotation: the refresh token sealed for the team, and when the bot token expires (ms). */
  sealed_refresh_token?: string;
  token_expires_at?: number;
  /** A worker renewing the token holds this lease until then (ms); others use the current token or wait. */
  renewing_until?: number;
  removed?: boolean;
}

/** An install state already used (`CHAT_STATE#<id>` / `STATE`), removed by TTL once its expiry refuses it anyway: written by the installation store (chatInstallations.ts). */
export const chatStateKey = (stateId: string) => ({ pk: `CHAT_STATE#${stateId}`, sk: 'STATE' });
export interface ChatStateItem {
  pk: string;
  sk: string;
  type: 'chat_state';
  ttl: number;
}

/** A notice's mark (`CHAT_NOTICE#<event id>` / `NOTICE`): leased while a worker holds the event, `sent_at` once in Slack. Written by the notice marks' store (noticeMarks.ts). */
export const chatNoticeKey = (eventId: string) => ({ pk: `CHAT_NOTICE#${eventId}`, sk: 'NOTICE' });
export interface ChatNoticeItem {
  pk: string;
  sk: string;
  type: 'chat_notice';
  lease_until?: number;
  sent_at?: number;
  ttl: number;
}
