import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SesMailer } from '../../shared/adapters/ses.ts';

// SES cannot run here; what matters is the exact request the adapter sends.
const ses = mockClient(SESClient);
afterAll(() => ses.restore());
afterEach(() => ses.reset());

describe('SesMailer', () => {
  it('sends one SendEmail from the configured identity, plain text, UTF-8', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    const mailer = new SesMailer(new SESClient({ region: 'eu-west-1' }), 'no-reply@secrets.example.com');
    await mailer.send({ to: 'ana@example.com', subject: 'Your Hushlink sign-in code: 123456', text: 'Your code is 123456.' });
    const calls = ses.commandCalls(SendEmailCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      Source: 'no-reply@secrets.example.com',
      Destination: { ToAddresses: ['ana@example.com'] },
      Message: {
        Subject: { Data: 'Your Hushlink sign-in code: 123456', Charset: 'UTF-8' },
        Body: { Text: { Data: 'Your code is 123456.', Charset: 'UTF-8' } },
      },
    });
  });

  it('names a reply address when the message has one (an enquiry answered to its sender)', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-2' });
    const mailer = new SesMailer(new SESClient({ region: 'eu-west-1' }), 'no-reply@secrets.example.com');
    await mailer.send({ to: 'sales@example.com', replyTo: 'buyer@corp.example', subject: 'Enquiry', text: 'Hello' });
    expect(ses.commandCalls(SendEmailCommand)[0]!.args[0].input).toMatchObject({
      Destination: { ToAddresses: ['sales@example.com'] },
      ReplyToAddresses: ['buyer@corp.example'],
    });
  });

  it('lets a refusal from SES reach the caller', async () => {
    ses.on(SendEmailCommand).rejects(Object.assign(new Error('Email address is not verified.'), { name: 'MessageRejected' }));
    const mailer = new SesMailer(new SESClient({ region: 'eu-west-1' }), 'no-reply@secrets.example.com');
    await expect(mailer.send({ to: 'a@b.example', subject: 's', text: 't' })).rejects.toThrow('not verified');
  });
});
