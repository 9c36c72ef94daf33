import { describe, expect, it } from 'vitest';
import type { SignInPorts } from '../../shared/domain/accounts/signIn.ts';
import type { ReceiptPorts } from '../../shared/domain/secrets/receipts.ts';
import type { GatePorts } from '../../shared/domain/secrets/gate.ts';
import type { ClaimPorts } from '../../shared/domain/secrets/claim.ts';
import type { RequestPorts } from '../../shared/domain/requests/ports.ts';
import { memoryAccountPorts } from '../fakes/accountGroup.ts';
import { MemoryMailer } from '../fakes/mailer.ts';
import { memorySecretPorts } from '../fakes/secretGroup.ts';
import { aPendingFile } from './secretFixtures.ts';

/** The group helpers fit the domain's port bundles (checked by tsc), and share what one table shares. */
describe('memory port groups', () => {
  it('give the secrets use cases their ports, one secret store behind the store, adoptions and requests', async () => {
    const ports = memorySecretPorts();
    const bundles: [ClaimPorts, GatePorts, ReceiptPorts, Omit<RequestPorts, 'files'>] = [ports, ports, ports, ports];
    expect(bundles).toHaveLength(4);
    const file = aPendingFile();
    await ports.secrets.insert(file);
    expect(await ports.adoptions.adopt(file.id, 'usr_a')).toBe(true);
    expect((await ports.secrets.get(file.id))?.ownerId).toBe('usr_a');
    ports.clock.advance(60);
    expect(ports.clock.now()).toBe(Date.UTC(2026, 10, 24, 12) + 60_000);
  });

  it('give the accounts use cases theirs, access tokens signing with the fake’s keys', async () => {
    const ports = memoryAccountPorts();
    const signIn: SignInPorts = ports;
    const { token } = await signIn.accessTokens.issue({ userId: 'usr_a', sessionId: 'ses_a' });
    expect(token.split('.')).toHaveLength(3);
    expect(await ports.signingKeys.list()).toHaveLength(1);
  });

  it('keep mail as sent, and refuse it when told', async () => {
    const mailer = new MemoryMailer();
    await mailer.send({ to: 'ana@example.com', subject: 'Code', text: '123456' });
    mailer.failNext();
    await expect(mailer.send({ to: 'ben@example.com', subject: 'Code', text: '654321' })).rejects.toThrow();
    await mailer.send({ to: 'ben@example.com', subject: 'Again', text: '1' });
    expect(mailer.to('ana@example.com')).toEqual([{ to: 'ana@example.com', subject: 'Code', text: '123456' }]);
    const sent = mailer.sent;
    sent[0]!.text = 'changed';
    expect(mailer.sent.map((message) => message.subject)).toEqual(['Code', 'Again']);
    expect(mailer.sent[0]!.text).toBe('123456');
  });
});
