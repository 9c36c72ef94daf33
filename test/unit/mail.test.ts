import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalOutbox, type OutboxEntry } from '../../local/mail.ts';
import { AdjustableClock } from '../../shared/clock.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hushlink-mail-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const from = 'no-reply@hushlink.test';
const message = (n: number) => ({ to: `user${n}@example.com`, subject: `Subject ${n}`, text: `Your code is ${100000 + n}` });

describe('LocalOutbox', () => {
  it('starts empty and lists sent messages newest first, stamped by the clock', async () => {
    const clock = new AdjustableClock();
    const outbox = new LocalOutbox(clock, { from });
    expect(outbox.list()).toEqual([]);

    await outbox.send(message(1));
    clock.advance(3600);
    const secondAt = clock.now();
    await outbox.send(message(2));

    const listed = outbox.list();
    expect(listed.map((entry) => entry.to)).toEqual(['user2@example.com', 'user1@example.com']);
    expect(listed[0]).toEqual({ from, ...message(2), sent_at: expect.any(String) });
    const gap = Date.parse(listed[0]!.sent_at) - Date.parse(listed[1]!.sent_at);
    expect(gap).toBeGreaterThanOrEqual(3600_000);
    expect(Math.abs(Date.parse(listed[0]!.sent_at) - secondAt)).toBeLessThan(1000);
  });

  it('keeps only from, to, subject, text and sent_at', async () => {
    const outbox = new LocalOutbox(new AdjustableClock(), { from });
    await outbox.send({ ...message(1), bcc: 'hidden@example.com' } as never);
    expect(Object.keys(outbox.list()[0]!).sort()).toEqual(['from', 'sent_at', 'subject', 'text', 'to']);
  });

  it('hands a copy of the list out, so callers cannot change the outbox', async () => {
    const outbox = new LocalOutbox(new AdjustableClock(), { from });
    await outbox.send(message(1));
    outbox.list().pop();
    expect(outbox.list()).toHaveLength(1);
  });

  it('announces each message as it is sent', async () => {
    const announced: OutboxEntry[] = [];
    const outbox = new LocalOutbox(new AdjustableClock(), { from, announce: (entry) => announced.push(entry) });
    await outbox.send(message(1));
    await outbox.send(message(2));
    expect(announced.map((entry) => entry.subject)).toEqual(['Subject 1', 'Subject 2']);
    expect(announced[1]).toEqual(outbox.list()[0]);
  });

  it('writes each message to dataDir as JSON', async () => {
    const dir = tempDir();
    const outbox = new LocalOutbox(new AdjustableClock(), { from, dataDir: dir });
    await outbox.send(message(1));
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.json$/);
    expect(files[0]).not.toContain(':');
    expect(JSON.parse(readFileSync(join(dir, files[0]!), 'utf8'))).toEqual(outbox.list()[0]);
  });

  it('a new outbox on the same dataDir lists what an earlier one sent, newest first', async () => {
    const dir = tempDir();
    const clock = new AdjustableClock();
    const first = new LocalOutbox(clock, { from, dataDir: join(dir, 'nested', 'mail') });
    await first.send(message(1));
    await first.send(message(2)); // same millisecond possible: order still holds
    clock.advance(60);
    await first.send(message(3));

    const second = new LocalOutbox(clock, { from, dataDir: join(dir, 'nested', 'mail') });
    expect(second.list()).toEqual(first.list());
    expect(second.list().map((entry) => entry.to)).toEqual(['user3@example.com', 'user2@example.com', 'user1@example.com']);

    clock.advance(60);
    await second.send(message(4));
    expect(second.list().map((entry) => entry.to)[0]).toBe('user4@example.com');
    expect(readdirSync(join(dir, 'nested', 'mail'))).toHaveLength(4);

    const third = new LocalOutbox(clock, { from, dataDir: join(dir, 'nested', 'mail') });
    expect(third.list().map((entry) => entry.to)).toEqual([
      'user4@example.com',
      'user3@example.com',
      'user2@example.com',
      'user1@example.com',
    ]);
  });
});
