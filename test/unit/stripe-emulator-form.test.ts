import { describe, expect, it } from 'vitest';
import { StripeApiError } from '../../local/stripe/errors.ts';
import { mergeMetadata, parseForm, readParams } from '../../local/stripe/form.ts';
import { periodEnd } from '../../local/stripe/objects.ts';

/** The refusal a call throws, as the emulator would answer it. */
function refusal(call: () => unknown): { status: number; code?: string; param?: string; message: string } {
  try {
    call();
  } catch (error) {
    if (error instanceof StripeApiError) return { status: error.status, ...error.details };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseForm (Stripe parameters, as the SDK encodes them)', () => {
  it('nests bracketed keys, with or without escaped brackets, and reads indexed hashes as lists', () => {
    const form = parseForm(
      'mode=subscription&line_items[0][price]=price_a&line_items[0][quantity]=3&line_items%5B1%5D%5Bprice%5D=price_b' +
        '&subscription_data[metadata][workspace_id]=wks_1&success_url=http%3A%2F%2Flocalhost%2Fok%3Fs%3D%7BCHECKOUT_SESSION_ID%7D&name=Ana+B',
    );
    expect(form).toEqual({
      mode: 'subscription',
      line_items: [{ price: 'price_a', quantity: '3' }, { price: 'price_b' }],
      subscription_data: { metadata: { workspace_id: 'wks_1' } },
      success_url: 'http://localhost/ok?s={CHECKOUT_SESSION_ID}',
      name: 'Ana B',
    });
  });

  it('appends `a[]=` values, and keeps a hash whose keys are not exactly 0..n-1 a hash', () => {
    expect(parseForm('expand[]=customer&expand[]=subscription')).toEqual({ expand: ['customer', 'subscription'] });
    expect(parseForm('expand[0]=customer&expand[1]=subscription')).toEqual({ expand: ['customer', 'subscription'] });
    expect(parseForm('items[1][id]=si_1')).toEqual({ items: { 1: { id: 'si_1' } } });
    expect(parseForm('metadata[a]=1&metadata[0]=2')).toEqual({ metadata: { a: '1', 0: '2' } });
    expect(parseForm('')).toEqual({});
  });

  it('refuses a key given twice, or both as a value and as a hash', () => {
    expect(refusal(() => parseForm('email=a&email=b'))).toMatchObject({ status: 400, param: 'email' });
    expect(refusal(() => parseForm('metadata=x&metadata[a]=1'))).toMatchObject({ status: 400, param: 'metadata' });
    expect(refusal(() => parseForm('metadata[a]=1&metadata=x'))).toMatchObject({ status: 400, param: 'metadata' });
    expect(refusal(() => parseForm('expand[]=a&expand[0]=b'))).toMatchObject({ status: 400 });
  });
});

describe('readParams (what an endpoint accepts)', () => {
  const specs = {
    quantity: 'integer',
    cancel: 'boolean',
    metadata: 'metadata',
    items: { list: { id: 'string', quantity: 'integer' } },
    data: { hash: { metadata: 'metadata' } },
  } as const;

  it('types each field, leaves empty optional values unset and keeps empty metadata values (removal)', () => {
    const params = readParams(
      parseForm('quantity=5&cancel=true&metadata[a]=&items[0][id]=si_1&items[0][quantity]=2&data[metadata][k]=v&items[1][id]='),
      specs,
    );
    expect(params).toEqual({
      quantity: 5,
      cancel: true,
      metadata: { a: '' },
      items: [{ id: 'si_1', quantity: 2 }, {}],
      data: { metadata: { k: 'v' } },
    });
    expect(mergeMetadata({ a: '1', b: '2' }, { a: '', c: '3' })).toEqual({ b: '2', c: '3' });
  });

  it("names an unknown or malformed parameter by its full bracketed name, as Stripe's errors do", () => {
    expect(refusal(() => readParams(parseForm('items[0][colour]=red'), specs))).toMatchObject({
      status: 400,
      code: 'parameter_unknown',
      param: 'items[0][colour]',
      message: 'Received unknown parameter: items[0][colour]',
    });
    expect(refusal(() => readParams(parseForm('quantity=two'), specs))).toMatchObject({
      code: 'parameter_invalid_integer',
      param: 'quantity',
      message: 'Invalid integer: two',
    });
    expect(refusal(() => readParams(parseForm('cancel=yes'), specs))).toMatchObject({ param: 'cancel', message: 'Invalid boolean: yes' });
    expect(refusal(() => readParams(parseForm('quantity[a]=1'), specs))).toMatchObject({ param: 'quantity' });
    expect(refusal(() => readParams(parseForm('items=si_1'), specs))).toMatchObject({ param: 'items' });
    expect(refusal(() => readParams(parseForm(`metadata[${'k'.repeat(41)}]=v`), specs))).toMatchObject({
      param: `metadata[${'k'.repeat(41)}]`,
    });
    expect(refusal(() => readParams(parseForm(`metadata[k]=${'v'.repeat(501)}`), specs))).toMatchObject({ param: 'metadata[k]' });
  });
});

describe('periodEnd (a monthly period, anchored as Stripe anchors it)', () => {
  const at = (iso: string) => Date.parse(iso) / 1000;

  it('ends on the same day and time a month later, or on the last day of a shorter month', () => {
    expect(periodEnd(at('2031-03-15T09:30:05Z'))).toBe(at('2031-04-15T09:30:05Z'));
    expect(periodEnd(at('2031-01-31T12:00:00Z'))).toBe(at('2031-02-28T12:00:00Z'));
    expect(periodEnd(at('2032-01-31T12:00:00Z'))).toBe(at('2032-02-29T12:00:00Z'));
    expect(periodEnd(at('2031-12-31T23:59:59Z'))).toBe(at('2032-01-31T23:59:59Z'));
    expect(periodEnd(at('2031-02-28T00:00:00Z'), 'year')).toBe(at('2032-02-28T00:00:00Z'));
  });
});
