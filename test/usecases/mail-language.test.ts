import { describe, expect, it } from 'vitest';
import { startSignIn } from '../../shared/domain/accounts/signIn.ts';
import { sendEnterpriseInquiry } from '../../shared/domain/billing/enterprise.ts';
import { invite, transferWorkspace } from '../../shared/domain/workspaces/members.ts';
import type { Language } from '../../shared/languages.ts';
import { newUserId } from '../../shared/ids.ts';
import { memoryAccountPorts } from '../fakes/accountGroup.ts';
import { billingWorld } from './billing-world.ts';

// The language of each mail on the fakes (issue 32): the use cases take the request's language as
// a plain value and read the recipient's account for its saved one. Over HTTP, with the header
// parsed by the handlers: test/integration/account-language.test.ts.

const day = 24 * 3600;

/** A person of the world whose account saved `locale`. */
function speaker(b: ReturnType<typeof billingWorld>, label: string, locale: Language) {
  const person = { id: newUserId(), email: `${label}@example.com` };
  b.accounts.add({ ...person, plan: 'free', createdAt: b.clock.now(), locale });
  return person;
}

describe('billing notices: the buyer’s saved language, else English (no request causes them)', () => {
  it('mails a failed payment in the buyer’s language, with the date as the language writes it', async () => {
    const b = billingWorld();
    const ana = speaker(b, 'ana', 'fr');
    const subscription = await b.buy(ana, { plan: 'pro' });
    b.provider.account.failNextPayment(subscription.id);
    b.clock.advance(31 * day);
    await b.deliver(b.provider.account.endPeriod(subscription.id));
    const [failed] = b.mailer.to(ana.email);
    expect(failed!.subject).toBe('Hushlink\u00a0: un paiement a échoué');
    expect(failed!.text).toContain('Le paiement de votre offre Pro a échoué. Rien ne change jusqu’au ');
    expect(failed!.text).toMatch(/jusqu’au \d{1,2} \S+ \d{4}\u00a0;/);
    expect(failed!.text).toContain('https://eu.hushlink.example/billing');
  });

  it('mails an ended subscription in English to a buyer who saved none', async () => {
    const b = billingWorld();
    const bo = b.person('bo');
    const subscription = await b.buy(bo, { plan: 'pro' });
    await b.deliver(b.provider.account.setCancelAtPeriodEnd(subscription.id, true));
    b.clock.advance(31 * day);
    await b.deliver(b.provider.account.endPeriod(subscription.id));
    expect(b.mailer.to(bo.email).map((mail) => mail.subject)).toEqual(['Hushlink: your subscription ended']);
  });
});

describe('workspace mails: the recipient account’s saved language, else the request’s, else English', () => {
  it('an invitation and a handover', async () => {
    const b = billingWorld();
    const owner = b.person('owner');
    const id = await b.workspace(owner);
    const ja = speaker(b, 'kenji', 'ja');
    await invite(id, owner.id, { email: ja.email, role: 'admin' }, b.ports, 'de');
    expect(b.mailer.to(ja.email)[0]!.text).toContain('に管理者として参加するよう招待されました');
    await invite(id, owner.id, { email: 'stranger@example.com', role: 'member' }, b.ports, 'de');
    expect(b.mailer.to('stranger@example.com')[0]!.text).toContain('als Mitglied beizutreten');
    await invite(id, owner.id, { email: 'plain@example.com', role: 'member' }, b.ports);
    expect(b.mailer.to('plain@example.com')[0]!.subject).toBe('You are invited to Acme on Hushlink');

    const heir = await b.join(id, owner, 'admin', speaker(b, 'heir', 'ar'));
    await transferWorkspace(id, owner.id, heir.id, b.ports, 'es');
    expect(b.mailer.to(heir.email).at(-1)!.subject).toBe('أصبحت مالك Acme على Hushlink');
    expect(b.mailer.to(owner.email).at(-1)!.subject).toBe('Transferiste Acme en Hushlink');
  });
});

describe('mails asked for: the request’s language, else English', () => {
  it('a sign-in code never reads the account (its cost would tell who has one)', async () => {
    const ports = memoryAccountPorts();
    const user = await ports.users.createOrGet({ id: newUserId(), email: 'dee@example.com', plan: 'free', createdAt: 0 });
    await ports.users.setLocale(user.id, 'nl');
    let reads = 0;
    const findByEmail = ports.users.findByEmail.bind(ports.users);
    ports.users.findByEmail = async (email) => {
      reads++;
      return findByEmail(email);
    };
    await startSignIn('dee@example.com', '192.0.2.1', ports, 'it');
    expect(reads).toBe(0);
    expect(ports.mailer.to('dee@example.com')[0]!.subject).toMatch(/^Il tuo codice di accesso Hushlink: \d{8}$/);
    await startSignIn('Dee@Example.com', '192.0.2.2', ports);
    expect(reads).toBe(0);
    expect(ports.mailer.to('dee@example.com')[1]!.subject).toMatch(/^Your Hushlink sign-in code: \d{8}$/);
  });

  it('an enquiry’s acknowledgement: to the enquirer, answering to sales, at most twice a day per address', async () => {
    const b = billingWorld();
    const enquiry = { name: 'Ana', email: 'ana@corp.example', company: 'Corp', message: 'Hello' };
    for (let i = 0; i < 3; i++) await sendEnterpriseInquiry(enquiry, b.ports, 'ja');
    expect(b.mailer.to('sales@hushlink.example')).toHaveLength(3);
    const acks = b.mailer.to('ana@corp.example');
    expect(acks.map((mail) => mail.subject)).toEqual([
      'Hushlink: Enterprise のお問い合わせを受け付けました',
      'Hushlink: Enterprise のお問い合わせを受け付けました',
    ]);
    expect(acks[0]!.replyTo).toBe('sales@hushlink.example');
    b.clock.advance(day);
    await sendEnterpriseInquiry(enquiry, b.ports);
    expect(b.mailer.to('ana@corp.example').at(-1)!.subject).toBe('Hushlink: we have your Enterprise enquiry');
  });
});
