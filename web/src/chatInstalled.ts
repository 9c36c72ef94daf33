/**
 * `/chat/installed?team=<name>`: where "Add to Slack" ends once the API's callback installed the
 * app (ADR 0182). Writes the team's name from the address, as text only and cut short: the page
 * is reachable by anyone with any name in it, so the name is shown and nothing acts on it.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { hasMessage, t, tNodes } from './i18n.ts';
import { byId } from './dom.ts';
import { renderNav } from './nav.ts';
import { resume } from './session.ts';

/** Slack's team names are short; anything longer is not one the callback sent. */
const longestTeamName = 100;

// The sentences with an element inside, in the page's language: the elements keep their place
// wherever the language puts them (the team's name, the `/secret` command, a bold start).
const teamElement = byId('installed-team');
const team = new URLSearchParams(location.search).get('team')?.trim() ?? '';
if (team && team.length <= longestTeamName) {
  teamElement.textContent = team;
  teamElement.translate = false;
  document.title = t('chat.installed.documentTitleTeam', { team });
} else if (hasMessage('chat.installed.yourWorkspace')) {
  teamElement.textContent = t('chat.installed.yourWorkspace');
}
// Without the messages (they could not be fetched) the markup's English stays.
if (hasMessage('chat.installed.title')) {
  byId('installed-title').replaceChildren(...tNodes('chat.installed.title', { team: teamElement }));
  byId('installed-step-command').replaceChildren(...tNodes('chat.installed.stepCommandTitle', { command: byId('installed-command') }));
  byId('installed-step-write').replaceChildren(...tNodes('chat.installed.stepWrite', { step: byId('installed-step-write-title') }));
}

async function main(): Promise<void> {
  // The header says who is signed in; an unreachable server leaves the page as it is.
  await resume().catch(() => null);
  renderNav();
  document.documentElement.dataset.ready = 'chat-installed';
}

void main();
