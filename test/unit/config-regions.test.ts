import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.ts';

const base = { TABLE_NAME: 't', WEB_ORIGIN: 'https://hush.example.com/', REGION: 'eu-west-1' };

describe('REGIONS', () => {
  it('defaults to this region alone, at the web origin', () => {
    expect(loadConfig(base).REGIONS).toEqual([{ id: 'eu-west-1', api_url: 'https://hush.example.com' }]);
  });

  it('reads a JSON array of {id, api_url} naming this region', () => {
    const regions = [
      { id: 'us-east-1', api_url: 'https://us.hush.example.com/' },
      { id: 'eu-west-1', api_url: 'https://eu.hush.example.com' },
    ];
    expect(loadConfig({ ...base, REGIONS: JSON.stringify(regions) }).REGIONS).toEqual([
      { id: 'us-east-1', api_url: 'https://us.hush.example.com' },
      { id: 'eu-west-1', api_url: 'https://eu.hush.example.com' },
    ]);
  });

  it.each([
    ['not JSON', '[{id:'],
    ['not an array', '{"id":"eu-west-1","api_url":"https://eu.example.com"}'],
    ['empty', '[]'],
    ['without this region', '[{"id":"us-east-1","api_url":"https://us.example.com"}]'],
    ['a duplicate id', '[{"id":"eu-west-1","api_url":"https://a.example.com"},{"id":"eu-west-1","api_url":"https://b.example.com"}]'],
    ['a url that is not one', '[{"id":"eu-west-1","api_url":"eu.example.com"}]'],
    ['a url of another scheme', '[{"id":"eu-west-1","api_url":"ftp://eu.example.com"}]'],
    ['an unknown field', '[{"id":"eu-west-1","api_url":"https://eu.example.com","weight":1}]'],
  ])('refuses a value that is %s, naming REGIONS', (_label, value) => {
    expect(() => loadConfig({ ...base, REGIONS: value })).toThrow(/REGIONS/);
  });
});
