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
  /** With Slack's token rotation on: the bot token expires at `expiresAt` and is renewed with the refresh token. */
  rotation?: SealedRotation;
}

/** An expiring bot token's renewal, as stored: the refresh token sealed for the team (as the bot token is), and when the bot token expires (ms). */
export interface SealedRotation {
  sealedRefreshToken: string;
  expiresAt: number;
}

/** A renewal's result, written over the installation it renewed. */
export interface RenewedToken {
  sealedBotToken: string;
  rotation: SealedRotation;
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
  /**
   * Takes the renewal of the team's bot token, for one worker at a time: true when the
   * installation still holds `sealedRefreshToken` and no other worker's lease runs past `now`
   * (Slack's refresh token works once: two renewals with it would leave one worker a dead token).
   */
  claimRenewal(teamId: string, sealedRefreshToken: string, now: number, leaseUntil: number): Promise<boolean>;
  /** Writes a renewal over the installation if it still holds `previousRefreshToken` (not one installed since), and ends the lease. */
  saveRenewal(teamId: string, previousRefreshToken: string, renewed: RenewedToken): Promise<'saved' | 'replaced'>;
  /** Gives a lease back (Slack did not answer), so the next worker renews without waiting it out. */
  releaseRenewal(teamId: string, leaseUntil: number): Promise<void>;
}
