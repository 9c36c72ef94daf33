import { describe, expect, it } from 'vitest';
import { type CatalogueSet, catalogueSets, checkSet } from '../../scripts/catalogueCheck.ts';

describe('the catalogues (issue 32)', () => {
  it.each(catalogueSets().map((set) => [set.name, set] as const))(
    '%s: every key in every language, the same arguments and plural forms, none unused',
    (_, set) => {
      expect(checkSet(set)).toEqual([]);
    },
  );

  // The check itself, on a made-up set: it must catch each kind of mistake.
  it('catches a missing key, a changed argument, a missing plural form, an unused key and an unknown one', () => {
    // Spelled in pieces, so that this file (the made-up set's source) never names it whole.
    const unused = ['x', 'unused'].join('.');
    const catalogues: Record<string, Record<string, string>> = {
      en: { 'x.views': '{count, plural, one {# view} other {# views}}', 'x.hello': 'Hello {name}', [unused]: 'Never' },
      ar: { 'x.views': '{count, plural, one {مشاهدة} other {# مشاهدات}}', 'x.hello': 'مرحبا {nom}', [unused]: 'أبدا' },
    };
    const set: CatalogueSet = {
      name: 'made-up',
      read: (language) =>
        language in catalogues ? new Map(Object.entries(catalogues[language]!)) : language === 'de' ? new Map() : undefined,
      sources: [new URL(import.meta.url).pathname],
      prefixes: ['x.'],
    };
    // The sources: this file names x.views and x.hello through t(), and x.missing, which English lacks.
    const t = (key: string) => key;
    t('x.views');
    t('x.hello');
    t('x.missing');
    const problems = checkSet(set).join('\n');
    expect(problems).toContain('de: missing x.views');
    expect(problems).toContain('no fr catalogue');
    expect(problems).toMatch(/ar x\.views: plural count lacks few, many, two, zero/);
    expect(problems).toMatch(/ar x\.hello: arguments \{nom:string\}, English has \{name:string\}/);
    expect(problems).toContain('x.unused is never used');
    expect(problems).toContain('x.missing is used but not in English');
  });
});
