/**
 * What the sections of a workspace's page (`/workspace?id=`) share: the workspace as last read,
 * the signed-in user, and what to do when the server says the page is out of date.
 */
import { ApiError } from './api.ts';
import type { AccountUser } from './api.ts';
import { showProblem } from './accountPage.ts';
import { announce, setVisible } from './dom.ts';
import { language, t } from './i18n.ts';
import { withAccess } from './session.ts';
import type { WorkspaceSummary } from './workspacesApi.ts';

export interface WorkspaceContext {
  /** As `GET /v1/workspaces` last answered it: role, plan, seats, policy, branding. */
  readonly workspace: WorkspaceSummary;
  readonly user: AccountUser;
  /** Reads the workspace again and redraws every section (a role, the plan or the members changed). */
  refresh(): Promise<void>;
  /** Says something about the whole page in its notice (above the sections) and moves focus there. */
  notice(text: string): void;
}

/**
 * A refusal any section's call can get: 404 (the workspace, member or invitation is gone, or
 * the caller is no longer a member) and 403 `reason: role` (the caller's role changed) read the
 * page again, which redraws what the caller may now do, and say why in the page's notice (the
 * section that asked may be gone); anything else is shown in `box` after `prefix`.
 */
export async function explainRefusal(context: WorkspaceContext, error: unknown, box: HTMLElement, prefix: string): Promise<void> {
  if (error instanceof ApiError && (error.status === 404 || (error.status === 403 && error.problem.reason === 'role'))) {
    const why = error.status === 404 ? t('workspace.refused.gone') : t('workspace.refused.role');
    await context.refresh();
    context.notice(why);
    return;
  }
  showProblem(box, error, prefix);
}

/** Runs one action with the session's token, its button disabled meanwhile; `done` follows a success, `refused` a refusal. */
export async function run(
  button: HTMLButtonElement,
  error: HTMLElement,
  call: (accessToken: string) => Promise<unknown>,
  done: () => unknown,
  refused: (problem: unknown, prefix: string) => unknown,
  prefix: string,
): Promise<void> {
  button.disabled = true;
  setVisible(error, false);
  announce(t('workspace.working'));
  try {
    await withAccess(call);
  } catch (problem) {
    announce('');
    button.disabled = false;
    await refused(problem, prefix);
    return;
  }
  await done();
}

export function show(box: HTMLElement, text: string): void {
  box.textContent = text;
  setVisible(box, true);
  box.focus();
}

/**
 * The service's own words (a field's `message`, a `detail`) are English, for API clients: an
 * English page shows them, any other language `instead`, its own words for the same refusal.
 */
export const serverWords = (english: string, instead: string): string => (language === 'en' ? english : instead);

/** Whole sentences one after another: a space between them, none in Japanese and Chinese. */
export const sentences = (...parts: string[]): string => parts.filter((part) => part !== '').join(/^(?:ja|zh)\b/.test(language) ? '' : ' ');
