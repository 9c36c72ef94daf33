/**
 * `/chat/installed?team=<name>`: where "Add to Slack" ends once the API's callback installed the
 * app (ADR 0182). Writes the team's name from the address, as text only and cut short: the page
 * is reachable by anyone with any name in it, so the name is shown and nothing acts on it.
 */
import { byId } from './dom.ts';
import { renderNav } from './nav.ts';
import { resume } from './session.ts';

/** Slack's team names are short; anything longer is not one the callback sent. */
const longestTeamName = 100;

const team = new URLSearchParams(location.search).get('team')?.trim() ?? '';
if (team && team.length <= longestTeamName) {
  byId('installed-team').textContent = team;
  document.title = `Hushlink is installed in ${team}`;
}

async function main(): Promise<void> {
  // The header says who is signed in; an unreachable server leaves the page as it is.
  await resume().catch(() => null);
  renderNav();
  document.documentElement.dataset.ready = 'chat-installed';
}

void main();
