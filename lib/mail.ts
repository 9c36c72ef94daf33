import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

export interface MailProps {
  /** The verified SES identity (a domain or an address) mail is sent from. */
  readonly sesIdentity: string;
  /** The sender address: the identity itself or an address of its domain. */
  readonly mailFrom: string;
}

/**
 * Sending mail through SES (`SendEmail` of the SES v1 API, `@aws-sdk/client-ses`). The identity
 * is verified outside the stack (docs/deploy.md, "Email (SES)"), so the construct creates
 * nothing: it names the identity and grants sending from it.
 */
export class Mail extends Construct {
  readonly identityArn: string;
  readonly mailFrom: string;

  constructor(scope: Construct, id: string, props: MailProps) {
    super(scope, id);
    this.mailFrom = props.mailFrom;
    this.identityArn = Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: props.sesIdentity });
  }

  /**
   * `ses:SendEmail` on the identity, and only with the configured sender as From. In the SES
   * sandbox, where every recipient must be a verified identity too, SES has been seen to also
   * authorize the send against the recipient's identity ARN, which this statement does not name:
   * request production access before relying on sign-in mail (docs/deploy.md, "Email (SES)").
   */
  grantSendEmail(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [this.identityArn],
        conditions: { StringEquals: { 'ses:FromAddress': this.mailFrom } },
      }),
    );
  }
}
