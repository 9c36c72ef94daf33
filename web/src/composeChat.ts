/**
 * The compose page opened from a chat link (`/#chat=<chat token>`, the answer of Slack's
 * `/secret`): the token is read from the fragment and taken off the address bar at once, so it
 * is neither kept in history nor bookmarked; the page says a Slack message will come, and once
 * the secret exists asks for it (`POST /v1/chat/subscribe`). The token is sent there only, with
 * the secret's id and delete token: never a link, never its key.
 * One chat link is for one secret: "Create another" is a plain compose page again.
 */
import { chatLimits } from '../../shared/limits.ts';
import { ApiError, chatApi, problemText } from './api.ts';
import { announce, byId, setVisible } from './dom.ts';
import { t } from './i18n.ts';

const composeNotice = byId('compose-chat');
const resultNotice = byId('result-chat');
const resultText = byId('result-chat-text');
const retryActions = byId('result-chat-actions');
const retry = byId<HTMLButtonElement>('result-chat-retry');

/** A chat token is a compact JWT; the server checks it, this only refuses what cannot be one. */
const chatTokenShape = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** In this page's memory only, until the secret made with it is subscribed. */
let chatToken: string | null = null;
let pending: { id: string; deleteToken: string } | null = null;

function readChatLink(): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('chat');
  if (token === null) return;
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  if (token.length <= chatLimits.tokenChars && chatTokenShape.test(token)) {
    chatToken = token;
    composeNotice.textContent = t('compose.chat.willTell');
  } else {
    composeNotice.textContent = t('compose.chat.incomplete');
  }
  setVisible(composeNotice, true);
}

/** After the secret is created: asks that the Slack user be told when it is opened. */
export async function subscribeChat(secret: { id: string; delete_token: string }): Promise<void> {
  if (!chatToken) return;
  pending = { id: secret.id, deleteToken: secret.delete_token };
  await subscribe();
}

async function subscribe(): Promise<void> {
  if (!chatToken || !pending) return;
  retry.disabled = true;
  setVisible(retryActions, false);
  resultNotice.className = 'notice notice-info';
  resultText.textContent = t('compose.chat.asking');
  setVisible(resultNotice, true);
  try {
    await chatApi.subscribe({ secret_id: pending.id, delete_token: pending.deleteToken, chat_token: chatToken });
    chatToken = null;
    pending = null;
    resultText.textContent = t('compose.chat.subscribed');
    resultNotice.dataset.chat = 'subscribed';
  } catch (error) {
    resultNotice.className = 'notice notice-warning';
    if (error instanceof ApiError && error.status === 403 && error.problem.reason === 'chat_token') {
      chatToken = null;
      pending = null;
      resultText.textContent = t('compose.chat.expired');
      resultNotice.dataset.chat = 'expired';
    } else {
      const reason = error instanceof ApiError ? problemText(error) : t('compose.chat.pageError');
      resultText.textContent = t('compose.chat.failed', { reason });
      resultNotice.dataset.chat = 'failed';
      // Worth another try only when the server was not reached or could not answer then.
      const transient = !(error instanceof ApiError) || error.status === 0 || error.status === 429 || error.status >= 500;
      retry.disabled = !transient;
      setVisible(retryActions, transient);
    }
  }
  announce(resultText.textContent);
}

/** "Create another": the chat link was for the secret just made. */
export function endChatLink(): void {
  chatToken = null;
  pending = null;
  setVisible(composeNotice, false);
  setVisible(resultNotice, false);
  delete resultNotice.dataset.chat;
}

retry.addEventListener('click', () => void subscribe());
readChatLink();
