import type { Clock } from '../../clock.ts';
import { constantTimeEqual, sha256Base64Url } from '../../ids.ts';
import { Forbidden, NotFound } from '../refusals.ts';
import { configuredApp, type ChatAppSource } from './app.ts';
import { readChatToken } from './tokens.ts';

/**
 * The chat user a secret's events are told to (its DM), kept on the secret itself so the
 * stream record of each event carries it to the relay.
 */
export interface ChatSubscriptionStore {
  /** The secret's delete token hash, or null when there is no such secret. */
  deleteTokenHashOf(secretId: string): Promise<string | null>;
  /** `gone` when the secret was removed, or has ended (nothing will ever be told of it). */
  subscribe(secretId: string, teamId: string, chatUserId: string): Promise<'subscribed' | 'gone'>;
}

export interface ChatSubscribePorts {
  chatApp: ChatAppSource;
  subscriptions: ChatSubscriptionStore;
  clock: Clock;
}

/** What the composer asks: tell the chat user its chat token names about the secret it just made (the delete token proves it did). */
export interface NewChatSubscription {
  secretId: string;
  deleteToken: string;
  chatToken: string;
}

const refused = (reason: string, detail: string) => new Forbidden(detail, { facts: { reason } });
const noSuchSecret = () => new NotFound('No such secret.');

/**
 * `POST /v1/chat/subscribe`: the composer, opened from a chat link, asks that the chat user be
 * told when the secret it just made is opened. The chat token names the team and the user (403
 * when bad or expired); the delete token proves the caller made the secret (403 when it does not
 * match, compared in constant time); an ended secret is 404 like one that never was, since
 * nothing will happen to it to tell. Carries no link and answers none.
 */
export async function subscribeChat(request: NewChatSubscription, ports: ChatSubscribePorts): Promise<void> {
  const app = await configuredApp(ports.chatApp);
  const chat = await readChatToken(request.chatToken, ports.clock.now(), app.clientSecret);
  if (!chat) throw refused('chat_token', 'The chat link has expired or is not valid: run the command again.');
  const hash = await ports.subscriptions.deleteTokenHashOf(request.secretId);
  if (hash === null) throw noSuchSecret();
  if (!constantTimeEqual(Buffer.from(sha256Base64Url(request.deleteToken)), Buffer.from(hash)))
    throw refused('delete_token', 'The delete token does not match this secret.');
  if ((await ports.subscriptions.subscribe(request.secretId, chat.teamId, chat.slackUserId)) === 'gone') throw noSuchSecret();
}
