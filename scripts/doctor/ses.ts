import {
  GetAccountSendingEnabledCommand,
  GetIdentityVerificationAttributesCommand,
  GetSendQuotaCommand,
  type SESClient,
} from '@aws-sdk/client-ses';
import type { HushlinkSettings } from '../../lib/config.ts';
import { fail, ok, warn, type Check } from './report.ts';

/** SES's sandbox quota: 200 messages in 24 hours (and 1 a second), to verified addresses only. */
export const sandboxDailyQuota = 200;
/** A day's sending this far into its quota is a warning: the next sign-in codes may be refused. */
const quotaWarnShare = 0.8;

/**
 * `ses:GetIdentityVerificationAttributes` of `sesIdentity` (the identity the functions may send
 * from, lib/mail.ts): verified, or the step that is missing.
 */
export async function checkSesIdentity(ses: SESClient, settings: HushlinkSettings, region: string): Promise<Check> {
  const identity = settings.sesIdentity;
  const answer = await ses.send(new GetIdentityVerificationAttributesCommand({ Identities: [identity] }));
  const status = answer.VerificationAttributes?.[identity]?.VerificationStatus;
  const isDomain = !identity.includes('@');
  const verify = isDomain
    ? `aws ses verify-domain-identity --domain ${identity} --region ${region}, then publish the TXT record _amazonses.${identity} it names (or verify it with Easy DKIM in the SES console)`
    : `aws ses verify-email-identity --email-address ${identity} --region ${region}, then open the link SES mails to it`;
  const of = `SES identity ${identity} (mailFrom ${settings.mailFrom}) in ${region}`;
  switch (status) {
    case 'Success':
      return ok('ses identity', `${of}: verified`);
    case 'Pending':
      return fail(
        'ses identity',
        `${of}: verification pending; sign-in codes are refused until it is verified`,
        isDomain
          ? `publish the TXT record _amazonses.${identity} (aws ses get-identity-verification-attributes --identities ${identity} --region ${region} shows its value) or the Easy DKIM records; SES checks for 72 hours`
          : `open the verification link SES mailed to ${identity} (it lasts 24 hours; to send it again: aws ses verify-email-identity --email-address ${identity} --region ${region})`,
      );
    case 'Failed':
    case 'TemporaryFailure':
      return fail(
        'ses identity',
        `${of}: verification ${status === 'Failed' ? 'failed' : 'temporarily failing'}`,
        `verify it again: ${verify}`,
      );
    default:
      return fail('ses identity', `${of}: not an identity of this account and region`, verify);
  }
}

/**
 * `ses:GetAccountSendingEnabled` and `ses:GetSendQuota`: sending is on, and the account is out
 * of the sandbox (a quota of 200 a day is the sandbox's: mail reaches verified addresses only,
 * so nobody else can sign in). On prod the sandbox is a fail, on another stage a warning.
 */
export async function checkSesSending(ses: SESClient, stage: string, region: string): Promise<Check> {
  const [enabled, quota] = await Promise.all([ses.send(new GetAccountSendingEnabledCommand({})), ses.send(new GetSendQuotaCommand({}))]);
  if (enabled.Enabled === false)
    return fail(
      'ses sending',
      `sending is paused for this account in ${region}: no sign-in code goes out`,
      'read why in the SES console (Reputation metrics, the mail AWS sent about the pause), fix the cause and ask AWS to resume sending',
    );
  const max = quota.Max24HourSend ?? 0;
  const sent = quota.SentLast24Hours ?? 0;
  if (max <= sandboxDailyQuota) {
    const detail = `in the SES sandbox in ${region}: ${max} messages a day, to verified addresses only; others cannot sign in`;
    const fix = `request production access: SES console → Account dashboard → Request production access (or aws sesv2 put-account-details --region ${region} --production-access-enabled --mail-type TRANSACTIONAL --website-url …)`;
    return stage === 'prod' ? fail('ses sending', detail, fix) : warn('ses sending', detail, fix);
  }
  const used = `${Math.round(sent).toLocaleString('en')} of ${Math.round(max).toLocaleString('en')} sent in the last 24 hours, ${quota.MaxSendRate ?? '?'} a second`;
  if (sent >= max * quotaWarnShare)
    return warn(
      'ses sending',
      `out of the sandbox, but ${used}: past the quota, sign-in codes are refused`,
      'ask for a higher sending quota: Service Quotas → Amazon SES → Sending quota',
    );
  return ok('ses sending', `out of the sandbox in ${region}: ${used}`);
}
