import { describe, expect, it } from 'vitest';
import {
  askedMailLanguage,
  type MailArguments,
  mailCatalogues,
  mailTemplates,
  type MailTemplate,
  noticeMailLanguage,
  renderMail,
} from '../../shared/domain/mailText.ts';
import { type Language, languages } from '../../shared/languages.ts';

// Every mail in every language (issue 32): rendered whole, its arguments in it, its plurals by the
// language's own rules, and English exactly as the mails said before they had catalogues.

const link = 'https://hushlink.example/signin#email=ana%40example.com&token=hls_AbC';
const until = Date.UTC(2026, 11, 6, 10, 5);

/** Arguments for each template, and the values that must show in its subject or text. */
const samples: { [T in MailTemplate]: { args: MailArguments[T]; shows: string[] } } = {
  signInCode: { args: { code: '48213377', link, minutes: 10 }, shows: ['48213377', link] },
  ssoSignIn: { args: { link: 'https://hushlink.example/v1/auth/sso/start?email=a%40corp.example' }, shows: ['/v1/auth/sso/start?email='] },
  gateCode: { args: { code: '551902', minutes: 10 }, shows: ['551902'] },
  invitation: {
    args: {
      workspace: 'Acme Ops',
      inviter: 'owner@acme.example',
      email: 'new@acme.example',
      role: 'admin',
      link: 'https://hushlink.example/join#hli_token',
      until: { at: until, show: 'instant' },
    },
    shows: ['Acme Ops', 'owner@acme.example', 'new@acme.example', 'https://hushlink.example/join#hli_token', '2026'],
  },
  memberLeft: { args: { workspace: 'Acme Ops' }, shows: ['Acme Ops'] },
  memberRemoved: { args: { workspace: 'Acme Ops', remover: 'admin@acme.example' }, shows: ['Acme Ops', 'admin@acme.example'] },
  ownershipReceived: { args: { workspace: 'Acme Ops', previousOwner: 'old@acme.example' }, shows: ['Acme Ops', 'old@acme.example'] },
  ownershipHandedOver: { args: { workspace: 'Acme Ops', newOwner: 'next@acme.example' }, shows: ['Acme Ops', 'next@acme.example'] },
  paymentFailed: {
    args: { plan: 'team', until: { at: until, show: 'day' }, link: 'https://hushlink.example/billing' },
    shows: ['https://hushlink.example/billing', '2026', 'Team'],
  },
  subscriptionEnded: {
    args: { plan: 'pro', link: 'https://hushlink.example/billing' },
    shows: ['https://hushlink.example/billing', 'Pro'],
  },
  enterpriseAcknowledgement: { args: {}, shows: ['Hushlink Enterprise'] },
  webhookDisabled: {
    args: { url: 'https://hooks.example/in', id: 'whk_AbCdEf', failures: 20 },
    shows: ['https://hooks.example/in', 'whk_AbCdEf', new Intl.NumberFormat('en').format(20)],
  },
};

describe('mail catalogues', () => {
  it('hold English’s keys in every language, two per template', () => {
    const english = Object.keys(mailCatalogues.en).sort();
    expect(english).toEqual(mailTemplates.flatMap((template) => [`mail.${template}.subject`, `mail.${template}.text`]).sort());
    for (const language of languages) expect(Object.keys(mailCatalogues[language]).sort(), language).toEqual(english);
  });

  it.each(languages.map((language) => [language]))('%s: renders every template whole, with its arguments in it', (language) => {
    for (const template of mailTemplates) {
      const { args, shows } = samples[template];
      const mail = renderMail(template, language, args as never);
      const whole = `${mail.subject}\n${mail.text}`;
      expect(mail.subject.trim(), `${language} ${template}`).not.toBe('');
      expect(mail.text.trim(), `${language} ${template}`).not.toBe('');
      // A subject is one line; nothing of the MessageFormat syntax is left.
      expect(mail.subject, `${language} ${template}`).not.toMatch(/[\n{}]/);
      expect(whole, `${language} ${template}`).not.toMatch(/[{}]/);
      for (const value of shows) expect(whole, `${language} ${template}: ${value}`).toContain(value);
      // Codes are in their subject, so a phone's notification shows them.
      if ('code' in args) expect(mail.subject, `${language} ${template}`).toContain(args.code);
      if (language !== 'en')
        expect(whole, `${language} ${template} is translated`).not.toBe(
          (({ subject, text }) => `${subject}\n${text}`)(renderMail(template, 'en', args as never)),
        );
    }
  });

  it('writes dates with Intl in the language, in UTC; English keeps ISO 8601', () => {
    const invitation = (language: Language) => renderMail('invitation', language, samples.invitation.args).text;
    expect(invitation('en')).toContain('until 2026-12-06T10:05:00.000Z.');
    expect(invitation('de')).toContain('bis 6. Dezember 2026 um 10:05 UTC.');
    expect(invitation('fr')).toContain('jusqu’au 6 décembre 2026 à 10:05 UTC.');
    expect(invitation('ja')).toContain('2026年12月6日');
    const failed = (language: Language) => renderMail('paymentFailed', language, samples.paymentFailed.args).text;
    expect(failed('en')).toContain('Nothing changes until 2026-12-06;');
    expect(failed('es')).toContain('hasta el 6 de diciembre de 2026;');
    expect(failed('ar')).toContain(new Intl.DateTimeFormat('ar', { dateStyle: 'long', timeZone: 'UTC' }).format(until));
  });

  describe('plurals follow each language’s rules', () => {
    const counts = [0, 1, 2, 5, 11, 100];
    const minutes = (language: Language, n: number) => renderMail('gateCode', language, { code: '123456', minutes: n }).text;
    const failures = (language: Language, n: number) =>
      renderMail('webhookDisabled', language, { url: 'https://hooks.example/in', id: 'whk_1', failures: n }).text;
    const number = (language: Language, n: number) => new Intl.NumberFormat(language).format(n);

    it('English: one, other', () => {
      for (const n of counts) {
        expect(minutes('en', n)).toContain(`It works for ${n} ${n === 1 ? 'minute' : 'minutes'}, on the page`);
        expect(failures('en', n)).toContain(`failed ${n} ${n === 1 ? 'time' : 'times'} in a row`);
      }
    });

    it('French: one for 0 and 1, other beyond (many is for millions)', () => {
      for (const n of counts) {
        expect(minutes('fr', n)).toContain(`pendant ${number('fr', n)} ${n <= 1 ? 'minute,' : 'minutes,'}`);
        expect(failures('fr', n)).toContain(`ont échoué ${number('fr', n)} fois de suite`);
      }
      expect(minutes('fr', 1_000_000)).toContain(`pendant ${number('fr', 1_000_000)} minutes,`);
    });

    it('Japanese: one form, the count written', () => {
      for (const n of counts) {
        expect(minutes('ja', n)).toContain(`${number('ja', n)} 分間`);
        expect(failures('ja', n)).toContain(`${number('ja', n)} 回連続`);
      }
    });

    it('Arabic: zero, one, two, few, many and other', () => {
      const expected: Record<number, [string, string]> = {
        0: [`${number('ar', 0)} دقيقة`, `${number('ar', 0)} مرة`],
        1: ['دقيقة واحدة', 'مرة واحدة'],
        2: ['دقيقتين', 'مرتين'],
        5: [`${number('ar', 5)} دقائق`, `${number('ar', 5)} مرات`],
        11: [`${number('ar', 11)} دقيقة`, `${number('ar', 11)} مرة`],
        100: [`${number('ar', 100)} دقيقة`, `${number('ar', 100)} مرة`],
      };
      const rules = new Intl.PluralRules('ar');
      expect(counts.map((n) => rules.select(n))).toEqual(['zero', 'one', 'two', 'few', 'many', 'other']);
      for (const n of counts) {
        expect(minutes('ar', n), String(n)).toContain(`لمدة ${expected[n]![0]}،`);
        expect(failures('ar', n), String(n)).toContain(`(whk_1) ${expected[n]![1]} متتالية`);
      }
    });
  });

  it('says in English exactly what the mails said before the catalogues', () => {
    const signIn = renderMail('signInCode', 'en', samples.signInCode.args);
    expect(signIn).toEqual({
      subject: 'Your Hushlink sign-in code: 48213377',
      text:
        'Your Hushlink sign-in code is 48213377.\n\n' +
        `Or sign in with this link (it opens a page with a Sign in button):\n${link}\n\n` +
        'The code and the link work once, for 10 minutes, and signing in with one uses the other. ' +
        'If you did not ask to sign in, ignore this email: nobody can sign in without the code or the link.',
    });
    expect(renderMail('gateCode', 'en', samples.gateCode.args)).toEqual({
      subject: 'Your code to open a secret: 551902',
      text:
        'Someone sent you a secret on Hushlink that only this address can open. Your code is 551902.\n\n' +
        'It works for 10 minutes, on the page where you asked for it. If you did not ask, ignore this email: nobody can use the code without the link.',
    });
    expect(renderMail('invitation', 'en', { ...samples.invitation.args, role: 'member' })).toEqual({
      subject: 'You are invited to Acme Ops on Hushlink',
      text:
        'owner@acme.example invites you to join the workspace "Acme Ops" on Hushlink as a member.\n\n' +
        'Accept here (sign in with this address, new@acme.example):\nhttps://hushlink.example/join#hli_token\n\n' +
        'The link works once, until 2026-12-06T10:05:00.000Z. Joining gives you a seat in the workspace; it never gives anyone access to your secrets.',
    });
    expect(renderMail('paymentFailed', 'en', { ...samples.paymentFailed.args, plan: 'pro' }).text).toBe(
      'The payment for your Pro plan failed. Nothing changes until 2026-12-06; if the payment still fails then, the plan falls back to Free. Update the card in the billing portal: https://hushlink.example/billing',
    );
    expect(renderMail('subscriptionEnded', 'en', { ...samples.subscriptionEnded.args, plan: 'team' }).text).toBe(
      'Your workspace’s Team plan has ended, and falls back to Free. Secrets already sent are untouched. You can subscribe again at https://hushlink.example/billing',
    );
    expect(renderMail('webhookDisabled', 'en', samples.webhookDisabled.args).text).toBe(
      [
        'Deliveries to your webhook endpoint https://hooks.example/in (whk_AbCdEf) failed 20 times in a row, so it has been switched off.',
        'No further events will be sent to it. Its delivery log shows what the receiver answered.',
        'When the receiver is fixed, send a test delivery from the webhooks page: its success switches the endpoint back on.',
      ].join('\n\n'),
    );
  });

  it('keeps each language’s security sentences (the code and the link alone let anyone in)', () => {
    // The sentence that says nobody can use a code without the link, in each language's words.
    const saysLinkNeeded: Record<Language, string> = {
      en: 'nobody can use the code without the link',
      de: 'Ohne den Link kann niemand den Code verwenden',
      fr: 'personne ne peut utiliser le code sans le lien',
      es: 'nadie puede usar el código sin el enlace',
      'pt-BR': 'ninguém consegue usar o código sem o link',
      it: 'nessuno può usare il codice senza il link',
      nl: 'niemand kan de code gebruiken zonder de link',
      ja: 'リンクがなければ、誰もこのコードを使えません',
      'zh-Hans': '没有链接,任何人都无法使用此验证码',
      ar: 'لا يمكن لأحد استخدام الرمز دون الرابط',
    };
    for (const language of languages)
      expect(renderMail('gateCode', language, samples.gateCode.args).text).toContain(saysLinkNeeded[language]);
  });
});

describe('the language of a mail', () => {
  it('asked for by its reader: the request’s, else English (no account is read: that would tell who has one)', () => {
    expect(askedMailLanguage('de')).toBe('de');
    expect(askedMailLanguage(undefined)).toBe('en');
  });

  it('not asked for: the recipient account’s saved one, else the causing request’s, else English', () => {
    expect(noticeMailLanguage({ locale: 'ja' }, 'de')).toBe('ja');
    expect(noticeMailLanguage({}, 'de')).toBe('de');
    expect(noticeMailLanguage(null, 'de')).toBe('de');
    expect(noticeMailLanguage(null, undefined)).toBe('en');
  });
});
