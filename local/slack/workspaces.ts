import { randomBytes, randomInt } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';

/** What the authorize step grants: the workspace, the approving user, the scopes asked for. */
export interface AuthorizeOptions {
  teamId?: string;
  teamName?: string;
  /** The user who approves the install: `authed_user.id`, and a member of the team. */
  userId?: string;
  scopes?: readonly string[];
  /** When the install was started with one, the exchange must name the same (`bad_redirect_uri`). */
  redirectUri?: string;
  /** An org-wide install: the answer names the enterprise and no team, as Slack's does. */
  enterprise?: { id: string; name: string };
}

export interface Team {
  id: string;
  name: string;
  botUserId: string;
  botId: string;
  /** Members a bot can open a DM with: installers and those added by `addUser`. */
  users: Set<string>;
}

export interface IssuedToken {
  teamId: string;
  scopes: string[];
  revoked: boolean;
  /** With token rotation on: when the token stops working (`token_expired`), ms. */
  expiresAt?: number;
}

/** A refresh token (`xoxe-1-…`): renews its team's bot token once, then is spent. */
export interface IssuedRefreshToken {
  teamId: string;
  scopes: string[];
  used: boolean;
}

/** What an install or a renewal grants: the bot token, and with rotation its refresh token and lifetime. */
export interface GrantedToken {
  token: string;
  rotation?: { refreshToken: string; expiresInSeconds: number };
}

interface IssuedCode {
  grant: Required<Omit<AuthorizeOptions, 'redirectUri' | 'enterprise'>> & Pick<AuthorizeOptions, 'redirectUri' | 'enterprise'>;
  expiresAt: number;
  used: boolean;
}

/** A message the bot posted, as the DM's reader would see it. */
export interface PostedMessage {
  teamId: string;
  channel: string;
  /** The DM's other member. */
  userId: string;
  text: string;
  blocks: unknown[] | null;
  ts: string;
}

/** Slack's authorization codes live 10 minutes and work once. */
const codeLifetimeMs = 10 * 60 * 1000;
/** With rotation on, Slack's bot tokens expire after 12 hours. */
export const rotatingTokenSeconds = 12 * 3600;

export const defaultAuthorize = {
  teamId: 'T0LOCAL001',
  teamName: 'Hushlink local workspace',
  userId: 'U0LOCAL001',
  scopes: ['commands', 'chat:write', 'im:write'],
} as const;

const alphanumeric = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const letters = (count: number, alphabet = alphanumeric) =>
  Array.from({ length: count }, () => alphabet[randomInt(alphabet.length)]).join('');
const digits = (count: number) => letters(count, '0123456789');

/**
 * The emulated Slack's state, in memory: codes issued by the authorize step, workspaces with
 * their bot and members, bot tokens, DM channels and posted messages. Ids and tokens have
 * Slack's shapes (`T…`, `U…`, `D…`, `xoxb-<digits>-<digits>-<24 letters>`); they are the
 * emulator's own, as they imitate another service's.
 */
export class SlackWorkspaces {
  readonly teams = new Map<string, Team>();
  readonly tokens = new Map<string, IssuedToken>();
  readonly refreshTokens = new Map<string, IssuedRefreshToken>();
  readonly messages: PostedMessage[] = [];
  /** Slack's "token rotation" app setting: on, installs and renewals grant expiring tokens with a refresh token. */
  rotation = false;
  private readonly codes = new Map<string, IssuedCode>();
  /** `<team>:<user>` → the DM channel and when it was opened (seconds). */
  private readonly channels = new Map<string, { id: string; created: number }>();
  private lastTs = 0;

  constructor(
    private readonly clock: Clock,
    readonly appId: string,
  ) {}

  /** A code for the OAuth redirect, as Slack issues when a user approves an install. */
  authorize(options: AuthorizeOptions = {}): string {
    const code = `${digits(10)}.${digits(13)}.${randomBytes(32).toString('hex')}`;
    const grant = {
      teamId: options.teamId ?? defaultAuthorize.teamId,
      teamName: options.teamName ?? defaultAuthorize.teamName,
      userId: options.userId ?? defaultAuthorize.userId,
      scopes: [...(options.scopes ?? defaultAuthorize.scopes)],
      ...(options.redirectUri !== undefined ? { redirectUri: options.redirectUri } : {}),
      ...(options.enterprise ? { enterprise: options.enterprise } : {}),
    };
    this.codes.set(code, { grant, expiresAt: this.clock.now() + codeLifetimeMs, used: false });
    return code;
  }

  /** The code's grant if it is live (unknown, used and expired codes are all `invalid_code` at Slack); uses it up. */
  redeem(code: string): IssuedCode['grant'] | null {
    const issued = this.codes.get(code);
    if (!issued || issued.used || issued.expiresAt <= this.clock.now()) return null;
    issued.used = true;
    return issued.grant;
  }

  /** Whether the code was issued for this redirect URI (or for none); checked before the code is used up. */
  redirectMatches(code: string, redirectUri: string | undefined): boolean {
    const issued = this.codes.get(code);
    return !issued || issued.grant.redirectUri === undefined || issued.grant.redirectUri === redirectUri;
  }

  /** Installs the bot in the team (again): a fresh bot token; earlier ones stay valid, as reinstalling leaves them. */
  install(grant: IssuedCode['grant']): { team: Team; token: string } {
    const team = this.teams.get(grant.teamId) ?? {
      id: grant.teamId,
      name: grant.teamName,
      botUserId: `U0${letters(9)}`,
      botId: `B0${letters(9)}`,
      users: new Set<string>(),
    };
    team.name = grant.teamName;
    team.users.add(grant.userId);
    this.teams.set(team.id, team);
    return { team, ...this.grantToken(team.id, grant.scopes, this.rotation) };
  }

  /** A bot token for the team: with rotation on, the expiring kind (`xoxe.xoxb-…`) and its refresh token. */
  private grantToken(teamId: string, scopes: readonly string[], rotating: boolean): GrantedToken {
    const secret = `${digits(11)}-${digits(13)}-${letters(24, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`;
    if (!rotating) {
      const token = `xoxb-${secret}`;
      this.tokens.set(token, { teamId, scopes: [...scopes], revoked: false });
      return { token };
    }
    const token = `xoxe.xoxb-1-${secret}`;
    this.tokens.set(token, { teamId, scopes: [...scopes], revoked: false, expiresAt: this.clock.now() + rotatingTokenSeconds * 1000 });
    const refreshToken = `xoxe-1-${randomBytes(48).toString('hex')}`;
    this.refreshTokens.set(refreshToken, { teamId, scopes: [...scopes], used: false });
    return { token, rotation: { refreshToken, expiresInSeconds: rotatingTokenSeconds } };
  }

  /**
   * `oauth.v2.access` with `grant_type=refresh_token`: a new bot token and refresh token for a
   * live refresh token, which is then spent; null (Slack's `invalid_refresh_token`) for one
   * unknown, spent, or of a team the app was removed from. The old bot token works until it expires.
   */
  renew(refreshToken: string): { team: Team; scopes: string[]; granted: GrantedToken } | null {
    const issued = this.refreshTokens.get(refreshToken);
    const team = issued ? this.teams.get(issued.teamId) : undefined;
    if (!issued || issued.used || !team) return null;
    issued.used = true;
    const live = [...this.tokens.values()].some((token) => token.teamId === team.id && !token.revoked);
    if (!live) return null;
    // Slack does not let an app turn rotation off once on: a renewal always rotates.
    return { team, scopes: [...issued.scopes], granted: this.grantToken(team.id, issued.scopes, true) };
  }

  /** The bot token's state: unknown, revoked (the app removed), expired (rotation), or valid. */
  tokenState(token: string): 'unknown' | 'revoked' | 'expired' | 'valid' {
    const issued = this.tokens.get(token);
    if (!issued) return 'unknown';
    if (issued.revoked) return 'revoked';
    return issued.expiresAt !== undefined && issued.expiresAt <= this.clock.now() ? 'expired' : 'valid';
  }

  /** Another member of the team, so the bot can DM them (someone other than the installer ran the command). */
  addUser(teamId: string, userId: string): void {
    const team = this.teams.get(teamId);
    if (!team) throw new Error(`no team ${teamId} is installed in the Slack emulator`);
    team.users.add(userId);
  }

  /** The app is removed from the team: each of its tokens answers `token_revoked` from now on. */
  revokeTeam(teamId: string): number {
    let revoked = 0;
    for (const issued of this.tokens.values()) {
      if (issued.teamId === teamId && !issued.revoked) (issued.revoked = true), revoked++;
    }
    return revoked;
  }

  /** The 1:1 DM between the bot and the user: made at the first open, the same one after. */
  openDm(teamId: string, userId: string): { id: string; created: number; alreadyOpen: boolean } {
    const key = `${teamId}:${userId}`;
    const existing = this.channels.get(key);
    if (existing) return { ...existing, alreadyOpen: true };
    const channel = { id: `D0${letters(9)}`, created: Math.floor(this.clock.now() / 1000) };
    this.channels.set(key, channel);
    return { ...channel, alreadyOpen: false };
  }

  /** The DM's other member, when the channel is one of the team's DMs. */
  dmUser(teamId: string, channel: string): string | null {
    for (const [key, value] of this.channels) {
      if (value.id === channel && key.startsWith(`${teamId}:`)) return key.slice(teamId.length + 1);
    }
    return null;
  }

  /** A message's `ts`: seconds and a 6-digit sequence, strictly increasing as Slack's are within a channel. */
  nextTs(): string {
    const micros = Math.max(this.clock.now() * 1000, this.lastTs + 1);
    this.lastTs = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
  }
}
