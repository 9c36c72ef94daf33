/**
 * A chat team's installation of the Hushlink app (issue 19, interface §4.9): the bot token the
 * delivery worker sends direct messages with, sealed at rest (KMS, encryption context
 * `chat_team=<team id>`), and who installed it. One per team: installing again replaces it.
 */
export interface ChatInstallation {
  /** The chat team (Slack's `T…`). */
  teamId: string;
  teamName: string;
  /** The bot token, sealed for this team: never stored or logged in the clear. */
  sealedBotToken: string;
  botUserId: string;
  scopes: string[];
  /** The Hushlink account that installed it (the install state named it). */
  installerUserId: string;
  /** The installer's own chat user. */
  installerChatUserId: string;
  installedAt: number;
}

export interface ChatInstallationStore {
  /**
   * Marks an install state used, once: `used` when it was already (a replayed callback), so
   * a state opens one installation at most. Kept until it would have expired anyway.
   */
  useInstallState(stateId: string, expiresAt: number): Promise<'claimed' | 'used'>;
  /** Writes the team's installation over any before it. */
  save(installation: ChatInstallation): Promise<void>;
  installation(teamId: string): Promise<ChatInstallation | null>;
  /**
   * Removes the team's installation if it still holds `sealedBotToken` (a token Slack revoked),
   * not one installed since: `removed`, or `replaced` when the team holds another now (or none).
   */
  removeIfToken(teamId: string, sealedBotToken: string): Promise<'removed' | 'replaced'>;
}
