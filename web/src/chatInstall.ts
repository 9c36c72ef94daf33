/**
 * My secrets' "Add to Slack": asks for an install (`POST /v1/chat/install`) and follows the
 * authorize URL it answers to Slack, whose Allow comes back to the callback's "installed" page.
 * There is no call to ask first whether the deployment has a chat app: the install is the one
 * call, and its 403 `chat_not_configured` says so in words instead.
 */
import { ApiError, chatApi } from './api.ts';
import { showProblem } from './accountPage.ts';
import { webAddress } from './billingApi.ts';
import { announce, byId, setVisible } from './dom.ts';
import { t } from './i18n.ts';
import { withAccess } from './session.ts';

const button = byId<HTMLButtonElement>('chat-install');
const error = byId('chat-error');
const unavailable = byId('chat-unavailable');

async function addToSlack(): Promise<void> {
  button.disabled = true;
  setVisible(error, false);
  announce(t('chatInstall.opening'));
  try {
    const { authorize_url } = await withAccess((token) => chatApi.startInstall(token));
    // Only a web address is followed: the URL comes from the API, and any other scheme would run here.
    const target = webAddress(authorize_url);
    if (target) return location.assign(target);
    error.textContent = t('chatInstall.notWeb');
    setVisible(error, true);
    error.focus();
  } catch (problem) {
    if (problem instanceof ApiError && problem.code === 'chat_not_configured') {
      // Nothing to retry from this page: only the operator can turn the chat app on.
      setVisible(button, false);
      setVisible(unavailable, true);
      announce(unavailable.textContent ?? '');
      unavailable.focus();
      return;
    }
    showProblem(error, problem, t('chatInstall.failed'));
  }
  button.disabled = false;
  announce('');
}

button.addEventListener('click', () => void addToSlack());
