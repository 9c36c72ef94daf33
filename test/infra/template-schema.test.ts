import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config.ts';
import { HushlinkStack } from '../../lib/stack.ts';
import { checkTemplate, loadResourceSchemas } from '../../lib/templateSchema.ts';
import { prepareWebAssets } from '../../lib/web.ts';
import { cdkContext } from './context.ts';

// The synthesized stack against CloudFormation's resource schemas (lib/templateSchema.ts), in
// the plain configuration and with every option on; and the check itself, on broken templates.

const webAssetsDir = await prepareWebAssets();
const db = await loadResourceSchemas();
const plain = template({ stage: 'dev' });

function template(context: Record<string, unknown>) {
  const app = new App({ context: { ...cdkContext, 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new HushlinkStack(app, 'HushlinkSchema', { settings: readSettings(app.node), webAssetsDir });
  return Template.fromStack(stack).toJSON() as { Resources: Record<string, { Type: string; Properties?: Record<string, any> }> };
}

describe('the stack against CloudFormation’s resource schemas', () => {
  it('plain and with every option on: every resource a known type, every property known, required ones there, each of its shape', () => {
    const full = template({
      stage: 'prod',
      customerManagedKey: 'true',
      xray: 'true',
      alarmEmail: 'ops@example.com',
      region: 'eu-west-1',
      webCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
      webOrigin: 'https://secrets.example.com',
      slackClientId: '1234567890.0987654321',
    });
    expect(checkTemplate(plain, db)).toEqual([]);
    expect(checkTemplate(full, db)).toEqual([]);
    // The CloudFront SaaS Manager pieces are among what is checked.
    const types = new Set(Object.values(full.Resources).map((resource) => resource.Type));
    expect(types).toContain('AWS::CloudFront::ConnectionGroup');
    expect(Object.keys(full.Resources).length).toBeGreaterThan(100);
  });
});

describe('the check', () => {
  /** One of the stack's own functions, to break. */
  const lambda = () => Object.values(plain.Resources).find((resource) => resource.Type === 'AWS::Lambda::Function')!;

  it('finds an unknown type, an unknown property, a missing required one, and values of the wrong shape', () => {
    const fn = lambda();
    const broken = {
      Resources: {
        Typo: { Type: 'AWS::Lambda::Functoin', Properties: {} },
        Fn: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            ...fn.Properties,
            Code: undefined,
            MemorySizes: 512,
            Timeout: 'ten',
            Architectures: 'arm64',
            Environment: { Variables: { A: { nested: true } } },
            Tags: [{ Key: 'team' }],
          },
        },
      },
    };
    delete (broken.Resources.Fn.Properties as Record<string, unknown>).Code;
    const found = checkTemplate(broken, db).map(({ resource, path, message }) => `${resource} ${path}: ${message}`);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Typo Type: no resource type AWS::Lambda::Functoin/),
        expect.stringMatching(/^Fn Properties\.MemorySizes: no property MemorySizes here/),
        'Fn Properties.Timeout: must be an integer, not string "ten"',
        'Fn Properties.Architectures: must be a list, not string "arm64"',
        'Fn Properties.Environment.Variables.A: must be a string, not an object',
        'Fn Properties.Tags[0].Value: is required',
        'Fn Properties.Code: is required',
      ]),
    );
    expect(found).toHaveLength(7);
  });

  it('takes intrinsics for any value, and checks both branches of an Fn::If', () => {
    const ok = {
      Resources: {
        Fn: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            Code: { S3Bucket: { 'Fn::Join': ['-', ['cdk', { Ref: 'AWS::AccountId' }]] }, S3Key: 'k.zip' },
            Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
            Timeout: { 'Fn::If': ['Prod', 30, { Ref: 'AWS::NoValue' }] },
            MemorySize: '256',
          },
        },
      },
    };
    expect(checkTemplate(ok, db)).toEqual([]);
    ok.Resources.Fn.Properties.Timeout = { 'Fn::If': ['Prod', 30, 'long'] };
    expect(checkTemplate(ok, db)).toEqual([
      {
        resource: 'Fn',
        type: 'AWS::Lambda::Function',
        path: 'Properties.Timeout(Fn::If else)',
        message: 'must be an integer, not string "long"',
      },
    ]);
  });
});
