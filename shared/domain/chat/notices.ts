import { maxQueueDelaySeconds, type Queue } from '../queue.ts';
import type { Clock } from '../../clock.ts';
import { chatLimits } from '../../limits.ts';
import type { AppLogger } from '../../logger.ts';
import type { StoredEvent } from '../secrets/model.ts';
import type { SecretSealer } from '../webhooks/ports.ts';
import { sendWork, type ChatNoticeMessage } from '../webhooks/work.ts';
import { botTokenFor, type BotTokenPorts } from './botToken.ts';
import type { ChatInstallation } from './installations.ts';
import type { ChatApi, DirectMessageOutcome } from './ports.ts';
import type { NoticeMarks } from '../noticeMarks.ts';

/**
 * "Your secret was opened" (issue 19): one direct message per event of a subscribed secret,
 * from the team's bot, carrying the secret's shortened id, a time and what is left. Never a
 * link and never content: a message in Slack is kept by Slack, and its text is only what the
 * service itself knows about the event.
 */

/** A secret's chat subscription, as its item carries it (`chat_team`, `chat_user`). */
export interface ChatSubscription {
  teamId: string;
  chatUserId: string;
}

/** What a write to a subscribed secret tells: the secret after it, whether a view was ever taken, and the events it added. */
export interface SubscribedWrite {
  secretId: string;
  viewsLeft: number;
  /** Any view taken, this write's or an earlier one's (its views left are under what it started with). */
  opened: boolean;
  events: readonly StoredEvent[];
}

/**
 * The notices a write's events call for: one per view, one for an expiry. A burn is not told
 * apart: the secret burns when its last view is taken, and that view's notice already says
 * none are left and it is gone (the claim writes the view and the burn separately, and the
 * same holds when one write carries both). Revocations and locks are the sender's own doing.
 */
export function chatNoticesOf(subscription: ChatSubscription, write: SubscribedWrite): ChatNoticeMessage[] {
  return write.events.flatMap((event): ChatNoticeMessage[] =>
    event.type === 'secret.viewed' || event.type === 'secret.expired'
      ? [
          {
            kind: 'chat_notice',
            event_id: event.id,
            secret_id: write.secretId,
            team_id: subscription.teamId,
            chat_user: subscription.chatUserId,
            type: event.type,
            occurred_at: new Date(event.at).toISOString(),
            views_left: write.viewsLeft,
            opened: write.opened,
          },
        ]
      : [],
  );
}

/** The secret's id as a notice names it: enough to tell one's secrets apart, not the whole id. */
export const shortSecretId = (secretId: string): string => `${secretId.slice(0, 8)}…`;

/**
 * The message text, exactly: "Your secret sec_abcd… was opened at 14:02 UTC (2 views left)."
 * Every part comes from the event (its type, time and views left) and the secret's id; nothing
 * the sender or a viewer chose.
 */
export function chatNoticeText(notice: Pick<ChatNoticeMessage, 'secret_id' | 'type' | 'occurred_at' | 'views_left' | 'opened'>): string {
  const at = `${notice.occurred_at.slice(11, 16)} UTC`;
  const secret = `Your secret ${shortSecretId(notice.secret_id)}`;
  if (notice.type === 'secret.expired')
    return notice.opened ? `${secret} expired at ${at}.` : `${secret} expired at ${at} without being opened.`;
  const left =
    notice.views_left === 0 ? 'no views left; it is gone now' : notice.views_left === 1 ? '1 view left' : `${notice.views_left} views left`;
  return `${secret} was opened at ${at} (${left}).`;
}

/** A chat notice's marks (shared/domain/noticeMarks.ts). */
export type ChatNoticeMarks = NoticeMarks;

export interface ChatNoticePorts extends BotTokenPorts {
  clock: Clock;
  logger: AppLogger;
  queue: Queue;
  chatNoticeMarks: ChatNoticeMarks;
  /** Opens bot tokens sealed for their team (KMS context `chat_team`); seals renewed ones. */
  chatSealer: SecretSealer;
  chatMessages: Pick<ChatApi, 'sendDirectMessage'>;
}

/**
 * - `sent`; `skipped`: sent already, or being sent by another delivery of the message;
 * - `uninstalled`: the team has no installation (removed, or its token was revoked): dropped;
 * - `token_dead`: Slack refused the token (or its renewal): the installation is removed, the notice dropped;
 * - `rate_limited`: queued again after Slack's Retry-After;
 * - `undeliverable`: Slack refused it in a way no retry mends (the user is gone, the bot lacks a
 *   scope): dropped with a warning, rather than retried into the dead letters and their alarm.
 */
export type ChatNoticeOutcome = 'sent' | 'skipped' | 'uninstalled' | 'token_dead' | 'rate_limited' | 'undeliverable';

/** Slack's refusals of a DM that no retry will change (its documented error codes). */
const permanentRefusals = new Set([
  'user_not_found',
  'user_disabled',
  'user_not_visible',
  'cannot_dm_bot',
  'missing_scope',
  'channel_not_found',
  'not_allowed_token_type',
  'is_archived',
]);

/**
 * Sends one notice at most once: the event's mark is claimed before Slack is called and marked
 * sent after. Any other failure gives the claim back and throws, so the queue retries the
 * message (and, after its redrive limit, sets it aside).
 */
export async function sendChatNotice(notice: ChatNoticeMessage, ports: ChatNoticePorts): Promise<ChatNoticeOutcome> {
  const installation = await ports.chatInstallations.installation(notice.team_id);
  if (!installation) return 'uninstalled';
  const now = ports.clock.now();
  const leaseUntil = now + chatLimits.noticeLeaseSeconds * 1000;
  if (!(await ports.chatNoticeMarks.claim(notice.event_id, now, leaseUntil, now + chatLimits.noticeMarkSeconds * 1000))) return 'skipped';

  let sent: SentNotice;
  try {
    sent = await sendWithCurrentToken(installation, notice, ports);
  } catch (error) {
    await ports.chatNoticeMarks.release(notice.event_id, leaseUntil);
    throw error;
  }
  const { result, sentWith } = sent;

  switch (result.outcome) {
    case 'renewal_refused':
      // The installation is removed already (botTokenFor): dropped, as for a revoked token.
      await ports.chatNoticeMarks.release(notice.event_id, leaseUntil);
      ports.logger.warn('chat installation removed: Slack refused to renew its token', {
        team_id: installation.teamId,
        error: result.error,
      });
      return 'token_dead';
    case 'sent':
      await ports.chatNoticeMarks.markSent(notice.event_id, ports.clock.now());
      return 'sent';
    case 'token_dead':
      // Not a token installed since: only the one Slack refused goes.
      await ports.chatInstallations.removeIfToken(sentWith.teamId, sentWith.sealedBotToken);
      await ports.chatNoticeMarks.release(notice.event_id, leaseUntil);
      ports.logger.warn('chat installation removed: Slack refused its token', { team_id: installation.teamId, error: result.error });
      return 'token_dead';
    case 'rate_limited':
      await ports.chatNoticeMarks.release(notice.event_id, leaseUntil);
      await sendWork(ports.queue, notice, Math.min(result.retryAfterSeconds, maxQueueDelaySeconds));
      return 'rate_limited';
    case 'failed':
      if (permanentRefusals.has(result.error)) {
        // Marked as done: another delivery of the message would meet the same refusal.
        await ports.chatNoticeMarks.markSent(notice.event_id, ports.clock.now());
        ports.logger.warn('chat notice undeliverable', { team_id: installation.teamId, error: result.error });
        return 'undeliverable';
      }
      await ports.chatNoticeMarks.release(notice.event_id, leaseUntil);
      throw new Error(`chat notice not sent: ${result.error}`);
  }
}

interface SentNotice {
  result: DirectMessageOutcome | { outcome: 'renewal_refused'; error: string };
  /** The installation as the DM was sent: renewed, when its token was. */
  sentWith: ChatInstallation;
}

/** The DM with the team's token, renewed first when due, and renewed and sent once more when Slack says it expired. */
async function sendWithCurrentToken(
  installation: ChatInstallation,
  notice: ChatNoticeMessage,
  ports: ChatNoticePorts,
): Promise<SentNotice> {
  let token = await botTokenFor(installation, ports);
  if (token.outcome === 'dead') return { result: { outcome: 'renewal_refused', error: token.error }, sentWith: installation };
  const text = chatNoticeText(notice);
  const result = await ports.chatMessages.sendDirectMessage(token.botToken, notice.chat_user, text);
  // Expired sooner than its expiry said (our clock apart from Slack's).
  if (result.outcome !== 'token_dead' || result.error !== 'token_expired' || !token.installation.rotation)
    return { result, sentWith: token.installation };
  token = await botTokenFor(token.installation, ports, { expired: true });
  if (token.outcome === 'dead') return { result: { outcome: 'renewal_refused', error: token.error }, sentWith: installation };
  return { result: await ports.chatMessages.sendDirectMessage(token.botToken, notice.chat_user, text), sentWith: token.installation };
}
