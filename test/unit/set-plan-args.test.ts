import { describe, expect, it } from 'vitest';
import { parseSetPlanArgs, renderResult, usage } from '../../scripts/setPlanCli.ts';
import type { ContractPlanRequest } from '../../shared/domain/contractPlans.ts';
import { contractPlanLimits } from '../../shared/limits.ts';

// The admin command's command line (scripts/setPlanCli.ts): what sales ask for, refused with a
// message naming the option before anything reaches a table. The command itself, run as a
// process against DynamoDB Local, is test/integration/set-plan-script.test.ts.

const workspaceId = 'wks_AAAAAAAAAAAAAAAAAAAAAA';
const why = ['--note', 'Contract HL-2025-014', '--by', 'ana (sales)'];
const where = ['--table', 'Hushlink-prod-Table', '--region', 'eu-west-1'];
const parse = (args: string[], env: Record<string, string | undefined> = {}) => parseSetPlanArgs(args, env);
const usageError = (args: string[], env: Record<string, string | undefined> = {}) => {
  const command = parse(args, env);
  expect(command.kind).toBe('usage_error');
  return command.kind === 'usage_error' ? command.message : '';
};

describe('parseSetPlanArgs', () => {
  it('reads an account’s Enterprise, a workspace’s with its seats, and a contract taken away', () => {
    expect(parse(['--email', ' CTO@Example.com ', '--plan', 'enterprise', ...why, ...where])).toEqual({
      kind: 'run',
      request: {
        target: { kind: 'account', email: ' CTO@Example.com ' },
        plan: 'enterprise',
        seats: null,
        note: 'Contract HL-2025-014',
        by: 'ana (sales)',
        dryRun: false,
      },
      table: 'Hushlink-prod-Table',
      region: 'eu-west-1',
      endpoint: undefined,
    });
    expect(parse(['--workspace', workspaceId, '--plan', 'enterprise', '--seats', '250', '--dry-run', ...why, ...where])).toMatchObject({
      kind: 'run',
      request: { target: { kind: 'workspace', workspaceId }, plan: 'enterprise', seats: 250, dryRun: true },
    });
    expect(parse(['--workspace', workspaceId, '--plan', 'none', ...why, ...where])).toMatchObject({
      kind: 'run',
      request: { plan: null, seats: null },
    });
    expect(parse(['--help'])).toEqual({ kind: 'help' });
    expect(usage).toContain('--plan <plan>        enterprise | none');
  });

  it('takes the region from the environment, and DynamoDB Local needs none', () => {
    const args = ['--email', 'a@example.com', '--plan', 'enterprise', ...why, '--table', 't'];
    expect(parse(args, { AWS_REGION: 'us-east-2', AWS_DEFAULT_REGION: 'eu-west-1' })).toMatchObject({ region: 'us-east-2' });
    expect(parse(args, { AWS_REGION: '', AWS_DEFAULT_REGION: 'eu-west-1' })).toMatchObject({ region: 'eu-west-1' });
    expect(parse([...args, '--endpoint', 'http://127.0.0.1:8000'])).toMatchObject({ region: 'local', endpoint: 'http://127.0.0.1:8000' });
    expect(usageError(args)).toBe("--region is required (or AWS_REGION): the table's region.");
  });

  it('refuses a wrong command line, naming the option', () => {
    const account = ['--email', 'a@example.com'];
    expect(usageError(['--plan', 'enterprise', ...why, ...where])).toBe('Name one account (--email) or one workspace (--workspace).');
    expect(usageError([...account, '--workspace', workspaceId, '--plan', 'enterprise', '--seats', '3', ...why, ...where])).toMatch(
      /^Name one account/,
    );
    expect(usageError(['--email', 'not-an-address', '--plan', 'enterprise', ...why, ...where])).toMatch(/^--email: /);
    expect(usageError(['--workspace', 'wks_short', '--plan', 'enterprise', '--seats', '3', ...why, ...where])).toMatch(/^--workspace: /);
    expect(usageError([...account, ...why, ...where])).toMatch(/^--plan is required/);
    for (const plan of ['pro', 'team', 'free', 'gold'])
      expect(usageError([...account, '--plan', plan, ...why, ...where])).toMatch(/^--plan: .* use enterprise or none\.$/);
    expect(usageError([...account, '--plan', 'enterprise', '--seats', '5', ...why, ...where])).toMatch(
      /^--seats: seats belong to a workspace/,
    );
    expect(usageError(['--workspace', workspaceId, '--plan', 'enterprise', ...why, ...where])).toMatch(/^--seats is required/);
    expect(usageError(['--workspace', workspaceId, '--plan', 'none', '--seats', '5', ...why, ...where])).toMatch(
      /^--seats: taking the contract away/,
    );
    for (const seats of ['0', '-1', '2.5', '1e3', 'ten', String(contractPlanLimits.seats.max + 1)]) {
      expect(usageError(['--workspace', workspaceId, '--plan', 'enterprise', `--seats=${seats}`, ...why, ...where])).toMatch(
        /^--seats: a whole number/,
      );
    }
    expect(usageError([...account, '--plan', 'enterprise', '--by', 'ana', ...where])).toMatch(/^--note is required/);
    expect(usageError([...account, '--plan', 'enterprise', '--note', '  ', '--by', 'ana', ...where])).toMatch(/^--note is required/);
    expect(usageError([...account, '--plan', 'enterprise', '--note', 'two\nlines', '--by', 'ana', ...where])).toMatch(/^--note: one line/);
    expect(
      usageError([...account, '--plan', 'enterprise', '--note', 'x'.repeat(contractPlanLimits.noteChars + 1), '--by', 'ana', ...where]),
    ).toMatch(/^--note: one line/);
    expect(usageError([...account, '--plan', 'enterprise', '--note', 'why', ...where])).toMatch(/^--by is required/);
    expect(usageError([...account, '--plan', 'enterprise', ...why, '--region', 'eu-west-1'])).toMatch(/^--table is required/);
    expect(usageError([...account, '--plan', 'enterprise', ...why, ...where, '--endpoint', 'not a url'])).toMatch(/^--endpoint: /);
    expect(usageError([...account, '--plan', 'enterprise', ...why, ...where, '--force'])).toMatch(/Unknown option '--force'/);
    expect(usageError([...account, '--plan', 'enterprise', ...why, ...where, 'extra'])).toMatch(/positional argument/);
  });
});

describe('renderResult', () => {
  const request: ContractPlanRequest = {
    target: { kind: 'workspace', workspaceId },
    plan: 'enterprise',
    seats: 2,
    note: 'Contract HL-2025-014',
    by: 'ana',
    dryRun: false,
  };
  const target = { kind: 'workspace' as const, workspaceId, name: 'Platform', members: 3 };

  it('prints the change, says a dry run wrote nothing, and refuses with status 1', () => {
    const changed = renderResult(
      {
        outcome: 'changed',
        target,
        before: { contractPlan: null, plan: 'team', seats: 5 },
        after: { contractPlan: 'enterprise', plan: 'enterprise', seats: 40 },
      },
      request,
    );
    expect(changed).toEqual({
      stdout: [
        `workspace "Platform" (${workspaceId}), 3 members`,
        '  contract plan  none → enterprise',
        '  plan in use    team → enterprise',
        '  seats          5 → 40',
        '  by ana: Contract HL-2025-014',
        "Done, with a row in the workspace's audit trail.",
        '',
      ].join('\n'),
      stderr: '',
      status: 0,
    });
    const dry = renderResult(
      {
        outcome: 'dry_run',
        target,
        before: { contractPlan: null, plan: 'free', seats: 5 },
        after: { contractPlan: 'enterprise', plan: 'enterprise', seats: 40 },
      },
      request,
    );
    expect(dry.stdout).toMatch(/Dry run: nothing written\.\n$/);
    expect(renderResult({ outcome: 'below_members', target, seats: 2 }, request)).toMatchObject({
      stdout: '',
      status: 1,
      stderr: expect.stringContaining('Ask for at least 3 seats'),
    });
    expect(renderResult({ outcome: 'not_found', target: { kind: 'account', email: 'a@example.com' } }, request)).toMatchObject({
      status: 1,
      stderr: 'No account signs in with a@example.com: nothing written.',
    });
    expect(renderResult({ outcome: 'not_found', target: { kind: 'workspace', workspaceId } }, request)).toMatchObject({
      status: 1,
      stderr: `No workspace ${workspaceId}: nothing written.`,
    });
  });
});
