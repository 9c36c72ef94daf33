import { describe, expect, it } from 'vitest';
import { commands } from '../../cli/src/commands/index.ts';
import { safeName } from '../../cli/src/commands/open.ts';
import { recipientsOf } from '../../cli/src/commands/send.ts';
import { countWithin, durationWithin, parseDuration, parseInstant } from '../../cli/src/duration.ts';
import { CliError, exitCodes, explain } from '../../cli/src/errors.ts';
import { commandHelp } from '../../cli/src/help.ts';
import { secretRef } from '../../cli/src/secretRef.ts';
import { EnvelopeError } from '../../shared/envelope/index.ts';
import { ApiError, TransferError } from '../../cli/transfer/index.ts';

// The CLI's pure parts: durations, recipients, file names, links, and how every failure becomes
// an exit code (the integration suites run the binary itself: test/integration/cli*.test.ts).

describe('durations', () => {
  it.each([
    ['90s', 90],
    ['15m', 900],
    ['1h', 3600],
    ['2d', 172_800],
    ['1w', 604_800],
    ['1h30m', 5400],
    ['1H 30M', 5400],
  ])('%s is %i seconds', (text, seconds) => expect(parseDuration(text, '--expires')).toBe(seconds));

  it.each(['', '10', 'h', '10y', '1h-', 'soon', '1.5h'])('refuses %j as a usage error', (text) => {
    expect(() => parseDuration(text, '--expires')).toThrow(expect.objectContaining({ exitCode: exitCodes.usage }));
  });

  it('bounds a duration or a count as the service does, saying the bounds in words', () => {
    const day = { min: 60, max: 30 * 86_400 };
    expect(durationWithin(undefined, '--expires', day)).toBeUndefined();
    expect(durationWithin('30d', '--expires', day)).toBe(30 * 86_400);
    expect(() => durationWithin('31d', '--expires', day)).toThrow('--expires must be from 1 minute to 30 days (got "31d").');
    expect(() => durationWithin('30m', '--expires', { min: 3600, max: 365 * 86_400 })).toThrow('from 1 hour to 365 days');
    expect(countWithin('7', '--views', { min: 1, max: 100 })).toBe(7);
    for (const bad of ['0', '101', '1.5', '-1', 'x'])
      expect(() => countWithin(bad, '--views', { min: 1, max: 100 })).toThrow('--views takes a number from 1 to 100');
  });

  it('takes an instant as ISO or as a duration from now', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(parseInstant('2h', '--not-before', now)).toBe('2026-11-24T12:00:00.000Z');
    expect(parseInstant('2026-12-01T09:00:00+01:00', '--not-before', now)).toBe('2026-12-01T08:00:00.000Z');
    expect(() => parseInstant('tomorrow', '--not-before', now)).toThrow(CliError);
    expect(() => parseInstant('12/01/2026', '--not-before', now)).toThrow(CliError);
  });
});

describe('recipients', () => {
  it('reads LABEL, LABEL:EMAIL and EMAIL, restricting addresses unless told otherwise', () => {
    expect(recipientsOf([], true)).toBeUndefined();
    expect(recipientsOf(['alice', 'bob:bob@example.com', 'carol@example.com'], true)).toEqual([
      { label: 'alice' },
      { label: 'bob', email: 'bob@example.com', restricted: true },
      { email: 'carol@example.com', restricted: true },
    ]);
    expect(recipientsOf(['bob:bob@example.com'], false)).toEqual([{ label: 'bob', email: 'bob@example.com' }]);
  });

  it('refuses a bad address, an empty one, too long a label and more than 20', () => {
    for (const given of [['bob:nope'], [':'], [`${'x'.repeat(65)}`], Array.from({ length: 21 }, (_, i) => `r${i}`)]) {
      expect(() => recipientsOf(given, true)).toThrow(expect.objectContaining({ exitCode: exitCodes.usage }));
    }
  });
});

describe('file names and links', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\key.pem', 'key.pem'],
    ['.bashrc', 'bashrc'],
    ['bad\u0000na\u001bme', 'badname'],
    ['', 'hushlink-sec_1'],
    ['...', 'hushlink-sec_1'],
  ])('%j is saved as %j', (name, saved) => expect(safeName(name, 'sec_1')).toBe(saved));

  it('names a secret by id or by any form of its link', () => {
    expect(secretRef('sec_abc', 'status')).toEqual({ id: 'sec_abc' });
    expect(secretRef('https://h.example/s/sec_abc#key', 'status')).toEqual({ id: 'sec_abc', origin: 'https://h.example' });
    expect(secretRef('https://h.example/s/sec_abc/r/rcp_1#key', 'status')).toEqual({
      id: 'sec_abc',
      recipientId: 'rcp_1',
      origin: 'https://h.example',
    });
    for (const bad of [undefined, 'abc', 'https://h.example/x/sec_abc', 'https://h.example/s/sec_abc/q/1'])
      expect(() => secretRef(bad, 'status')).toThrow(CliError);
  });
});

describe('exit codes', () => {
  const api = (status: number, code: string, problem: Record<string, unknown> = {}) =>
    new ApiError(status, code, { code, ...problem }, 'GET /v1/x');
  it.each<[string, unknown, number, string]>([
    ['a refusal', api(410, 'gone'), exitCodes.refused, 'gone'],
    ['a rate limit', api(429, 'rate_limited', { retry_after: 30 }), exitCodes.refused, 'rate_limited'],
    ['a claim proof refused', api(403, 'proof_refused', { attempts_left: 2 }), exitCodes.wrongKey, 'proof_refused'],
    ['a server failure', api(503, 'unavailable'), exitCodes.network, 'unavailable'],
    [
      'a file over the plan',
      api(403, 'forbidden', { reason: 'plan_limit', limit_bytes: 100 * 1024 * 1024 }),
      exitCodes.refused,
      'plan_limit',
    ],
    ['a dropped connection', new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }), exitCodes.network, 'network'],
    ['a wrong key', new EnvelopeError('wrong_key'), exitCodes.wrongKey, 'wrong_key'],
    ['a wrong passphrase', new EnvelopeError('wrong_passphrase'), exitCodes.wrongKey, 'wrong_passphrase'],
    ['a forged response', new EnvelopeError('forged'), exitCodes.wrongKey, 'forged'],
    ['parts that failed every attempt', new TransferError('transfer_failed', 'x'), exitCodes.network, 'transfer_failed'],
    ['an existing output', new TransferError('exists', 'x'), exitCodes.usage, 'exists'],
    ['an abort', new DOMException('aborted', 'AbortError'), exitCodes.interrupted, 'interrupted'],
  ])('%s', (_, error, exitCode, code) => {
    expect(explain(error)).toMatchObject({ exitCode, code });
  });

  it('says attempts left, the wait, and the fields a validation refused', () => {
    expect(explain(api(403, 'proof_refused', { attempts_left: 1 })).message).toMatch(/1 attempt left before it locks/);
    expect(explain(api(429, 'rate_limited', { retry_after: 30 })).message).toMatch(/Retry after 30 s/);
    expect(explain(api(400, 'invalid_request', { detail: 'Bad body', errors: [{ path: 'max_views', message: 'too big' }] })).message).toBe(
      'Bad body (max_views: too big)',
    );
    expect(explain(api(403, 'forbidden', { reason: 'plan_limit', limit_bytes: 100 * 1024 * 1024 })).message).toMatch(
      /^Files are limited to 100\.0 MiB on this plan/,
    );
    // A refusal as broad as 403 is said in the service's own words.
    expect(explain(api(403, 'forbidden', { detail: 'Only owners and admins may do this.' })).message).toBe(
      'Only owners and admins may do this.',
    );
    expect(explain(api(500, 'internal', { detail: 'Something broke.' })).message).toBe(
      'The service failed (500): Something broke. Try again later.',
    );
  });
});

describe('help', () => {
  it('every command has a summary, a description, options and examples', () => {
    for (const command of commands) {
      const help = commandHelp(command);
      expect(command.help.summary, command.name).not.toBe('');
      expect(command.help.examples.length, command.name).toBeGreaterThan(0);
      for (const [example] of command.help.examples) expect(example, command.name).toMatch(/hushlink /);
      expect(help).toMatch(new RegExp(`^Usage: hushlink ${command.name}`));
      // Every option parseArgs takes is explained.
      for (const name of Object.keys(command.options)) expect(help, `${command.name} --${name}`).toContain(`--${name}`);
    }
  });
});
