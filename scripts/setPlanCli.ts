import { parseArgs } from 'node:util';
import type { Plan } from '../shared/domain/accounts/model.ts';
import {
  contractPlans,
  type ContractPlanRequest,
  type ContractPlanResult,
  type ContractState,
  type ContractTargetFound,
} from '../shared/domain/contractPlans.ts';
import { isWorkspaceId } from '../shared/domain/workspaces/access.ts';
import { contractPlanLimits as limits } from '../shared/limits.ts';

/**
 * The command line of scripts/set-plan.ts (parsed and answered here, so both are tested without
 * a process): what sales ask for, where the table is, and what to print back.
 */

export const usage = `Sets or takes away a contract plan (${contractPlans.join(', ')}) for an account or a workspace,
in a deployed table, with the AWS credentials of the environment (the SDK's default chain).

  npm run admin:set-plan -- --email <address> --plan enterprise --note <why> --by <who> --table <name> [--region <region>]
  npm run admin:set-plan -- --workspace <wks_…> --plan enterprise --seats <n> --note <why> --by <who> --table <name>
  npm run admin:set-plan -- --email <address> --plan none --note <why> --by <who> --table <name>

  --email <address>    the account, by its sign-in address
  --workspace <id>     the workspace, by its id (wks_…)
  --plan <plan>        ${[...contractPlans, 'none'].join(' | ')} (none takes the contract away: the account or
                       workspace keeps what its subscription gives; a workspace's seats go back to
                       what its Team subscription pays for, or to its members without one)
  --seats <n>          with --workspace and a plan: its seats (${limits.seats.min} to ${limits.seats.max.toLocaleString('en')}), never below its members
  --note <text>        why (the contract, the ticket); kept with the change
  --by <name>          who asks; kept with the change
  --table <name>       the stack's table (its output TableName)
  --region <region>    the table's region (default: AWS_REGION, then AWS_DEFAULT_REGION)
  --endpoint <url>     DynamoDB Local instead of AWS (local runs and tests)
  --dry-run            print what would change, write nothing
  --help               this text

Exit status: 0 done (or nothing to do), 1 refused (no such account or workspace, seats below
its members) or failed, 2 a wrong command line.`;

export type SetPlanCommand =
  | { kind: 'help' }
  | { kind: 'usage_error'; message: string }
  | { kind: 'run'; request: ContractPlanRequest; table: string; region: string; endpoint: string | undefined };

const options = {
  email: { type: 'string' },
  workspace: { type: 'string' },
  plan: { type: 'string' },
  seats: { type: 'string' },
  note: { type: 'string' },
  by: { type: 'string' },
  table: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  'dry-run': { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

/** One line of text: no control characters (a note lands in an audit export, a line per row). */
const oneLine = (value: string) => !/[\p{Cc}\p{Zl}\p{Zp}]/u.test(value);

/** The command `argv` (without node and the script) asks for; `env` gives the region's defaults. */
export function parseSetPlanArgs(argv: readonly string[], env: Record<string, string | undefined>): SetPlanCommand {
  const parse = () => parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  let values: ReturnType<typeof parse>;
  try {
    values = parse();
  } catch (error) {
    return { kind: 'usage_error', message: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  const fail = (message: string): SetPlanCommand => ({ kind: 'usage_error', message });

  if ((values.email === undefined) === (values.workspace === undefined))
    return fail('Name one account (--email) or one workspace (--workspace).');
  if (values.email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(values.email.trim()))
    return fail(`--email: "${values.email}" is not an email address.`);
  if (values.workspace !== undefined && !isWorkspaceId(values.workspace))
    return fail(`--workspace: "${values.workspace}" is not a workspace id (wks_ and 22 characters).`);

  if (values.plan === undefined) return fail(`--plan is required: ${[...contractPlans, 'none'].join(' or ')}.`);
  let plan: Plan | null;
  if (values.plan === 'none') plan = null;
  else if ((contractPlans as readonly string[]).includes(values.plan)) plan = values.plan as Plan;
  else return fail(`--plan: "${values.plan}" is not set by contract; use ${[...contractPlans, 'none'].join(' or ')}.`);

  let seats: number | null = null;
  if (values.seats !== undefined) {
    if (values.email !== undefined) return fail('--seats: seats belong to a workspace, not an account.');
    if (plan === null)
      return fail(
        '--seats: taking the contract away gives the workspace the seats its subscription pays for (or its members); leave --seats out.',
      );
    if (!/^\d+$/.test(values.seats) || Number(values.seats) < limits.seats.min || Number(values.seats) > limits.seats.max) {
      return fail(`--seats: a whole number from ${limits.seats.min} to ${limits.seats.max}.`);
    }
    seats = Number(values.seats);
  } else if (values.workspace !== undefined && plan !== null) {
    return fail('--seats is required with --workspace: the seats the contract gives.');
  }

  const note = values.note?.trim() ?? '';
  const by = values.by?.trim() ?? '';
  if (note === '') return fail('--note is required: why (the contract, the ticket).');
  if (note.length > limits.noteChars || !oneLine(note)) return fail(`--note: one line of at most ${limits.noteChars} characters.`);
  if (by === '') return fail('--by is required: who asks.');
  if (by.length > limits.byChars || !oneLine(by)) return fail(`--by: one line of at most ${limits.byChars} characters.`);

  if (values.table === undefined || values.table === '') return fail("--table is required: the stack's table (its output TableName).");
  const endpoint = values.endpoint;
  if (endpoint !== undefined && !URL.canParse(endpoint)) return fail(`--endpoint: "${endpoint}" is not a URL.`);
  const region = values.region || env.AWS_REGION || env.AWS_DEFAULT_REGION || (endpoint === undefined ? undefined : 'local');
  if (region === undefined || region === '') return fail("--region is required (or AWS_REGION): the table's region.");

  return {
    kind: 'run',
    request: {
      target: values.email !== undefined ? { kind: 'account', email: values.email } : { kind: 'workspace', workspaceId: values.workspace! },
      plan,
      seats,
      note,
      by,
      dryRun: values['dry-run'] === true,
    },
    table: values.table,
    region,
    endpoint,
  };
}

const planName = (plan: Plan | null) => plan ?? 'none';

function describeTarget(target: ContractTargetFound): string {
  return target.kind === 'account'
    ? `account ${target.email} (${target.userId})`
    : `workspace "${target.name}" (${target.workspaceId}), ${target.members} member${target.members === 1 ? '' : 's'}`;
}

function describeChange(before: ContractState, after: ContractState): string[] {
  const lines = [
    `  contract plan  ${planName(before.contractPlan)} → ${planName(after.contractPlan)}`,
    `  plan in use    ${before.plan} → ${after.plan}`,
  ];
  if (before.seats !== undefined && after.seats !== undefined) lines.push(`  seats          ${before.seats} → ${after.seats}`);
  return lines;
}

/** What to print for a result, where, and the exit status. */
export function renderResult(result: ContractPlanResult, request: ContractPlanRequest): { stdout: string; stderr: string; status: 0 | 1 } {
  switch (result.outcome) {
    case 'not_found':
      return {
        stdout: '',
        stderr:
          result.target.kind === 'account'
            ? `No account signs in with ${result.target.email}: nothing written.`
            : `No workspace ${result.target.workspaceId}: nothing written.`,
        status: 1,
      };
    case 'below_members': {
      const members = result.target.kind === 'workspace' ? result.target.members : 0;
      return {
        stdout: '',
        stderr: `Refused: ${describeTarget(result.target)}; ${result.seats} seats would leave members without one. Ask for at least ${members} seats, or remove members first. Nothing written.`,
        status: 1,
      };
    }
    case 'unchanged':
      return { stdout: `${describeTarget(result.target)}\n  has no contract plan to take away: nothing written.\n`, stderr: '', status: 0 };
    case 'dry_run':
    case 'changed': {
      const lines = [describeTarget(result.target), ...describeChange(result.before, result.after), `  by ${request.by}: ${request.note}`];
      if (result.outcome === 'dry_run') lines.push('Dry run: nothing written.');
      else lines.push(result.target.kind === 'workspace' ? "Done, with a row in the workspace's audit trail." : 'Done.');
      return { stdout: `${lines.join('\n')}\n`, stderr: '', status: 0 };
    }
  }
}
