import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { columns, type MessageKey, messagesFor, padColumns, readCatalogue } from '../../cli/src/i18n.ts';
import { envelopeSentences } from '../../cli/src/errors.ts';
import { EnvelopeError, type EnvelopeErrorCode } from '../../shared/envelope/index.ts';
import { languages } from '../../shared/languages.ts';

// The CLI's catalogues (issue 32, cli/i18n/<language>.json): every language renders every key
// with English's arguments, plurals for 0, 1, 2, 5 and 11, each text exactly as intl-messageformat
// renders it (the CLI says plain texts and `{name}` arguments without the parser). The CLI run under each locale: test/integration/cli-i18n.test.ts.

const english = readCatalogue('en');
const keys = Object.keys(english) as MessageKey[];

interface Argument {
  name: string;
  kind: 'string' | 'plural' | 'select';
  options?: string[];
}

/** The arguments a message takes, as its English says them. */
function argumentsOf(elements: MessageFormatElement[], found = new Map<string, Argument>()): Map<string, Argument> {
  for (const element of elements) {
    if (element.type === TYPE.argument || element.type === TYPE.number) {
      if (!found.has(element.value)) found.set(element.value, { name: element.value, kind: 'string' });
    } else if (element.type === TYPE.plural) {
      found.set(element.value, { name: element.value, kind: 'plural' });
      for (const option of Object.values(element.options)) argumentsOf(option.value, found);
    } else if (element.type === TYPE.select) {
      found.set(element.value, { name: element.value, kind: 'select', options: Object.keys(element.options) });
      for (const option of Object.values(element.options)) argumentsOf(option.value, found);
    }
  }
  return found;
}

/** Whether any `#` is in a message: it formats through Intl.NumberFormat (see cli/src/i18n.ts). */
const hasPound = (elements: MessageFormatElement[]): boolean =>
  elements.some(
    (element) =>
      element.type === TYPE.pound ||
      ((element.type === TYPE.plural || element.type === TYPE.select) &&
        Object.values(element.options).some((option) => hasPound(option.value))),
  );

const counts = [0, 1, 2, 5, 11];
const shapes = new Map(keys.map((key) => [key, [...argumentsOf(parse(english[key]!, { ignoreTag: true })).values()]]));

/** Every combination of values a message is rendered with: each plural count, each select option. */
function valueSets(key: MessageKey): Array<Record<string, string | number>> {
  let sets: Array<Record<string, string | number>> = [{}];
  for (const argument of shapes.get(key)!) {
    const choices: Array<string | number> =
      argument.kind === 'plural' ? counts : argument.kind === 'select' ? argument.options! : [`«${argument.name}»`];
    sets = sets.flatMap((set) => choices.map((choice) => ({ ...set, [argument.name]: choice })));
  }
  return sets;
}

describe('the CLI catalogues', () => {
  it('hold the same keys in every language', () => {
    for (const language of languages) expect(Object.keys(readCatalogue(language)).sort(), language).toEqual([...keys].sort());
  });

  it.each(languages)('%s renders every key with English’s arguments, and plurals for 0, 1, 2, 5 and 11', (language) => {
    const messages = messagesFor(language);
    const catalogue = readCatalogue(language);
    const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories as string[];
    for (const key of keys) {
      const elements = parse(catalogue[key]!, { ignoreTag: true });
      // The same arguments, of the same kinds.
      expect(
        [...argumentsOf(elements).values()].sort((a, b) => a.name.localeCompare(b.name)),
        `${language} ${key}`,
      ).toEqual([...shapes.get(key)!].sort((a, b) => a.name.localeCompare(b.name)));
      expect(hasPound(elements), `${language} ${key} uses #`).toBe(false);
      // Every plural has `other` and each category this language's rules have.
      const plurals = (list: MessageFormatElement[]): Array<Record<string, unknown>> =>
        list.flatMap((element) =>
          element.type === TYPE.plural
            ? [element.options, ...Object.values(element.options).flatMap((option) => plurals(option.value))]
            : element.type === TYPE.select
              ? Object.values(element.options).flatMap((option) => plurals(option.value))
              : [],
        );
      for (const options of plurals(elements))
        for (const category of categories) expect(options, `${language} ${key}`).toHaveProperty(category);
      // intl-messageformat's own rendering, which the CLI's (plain text and `{name}` substituted without the parser) must equal.
      const reference = new IntlMessageFormat(elements, language);
      for (const values of valueSets(key)) {
        const text = messages.format(key, values);
        expect(text.trim(), `${language} ${key} ${JSON.stringify(values)}`).not.toBe('');
        expect(text, `${language} ${key} ${JSON.stringify(values)}`).toBe(String(reference.format(values)));
        // Every text argument is said: none lost to a quoting apostrophe or a typo.
        for (const [name, value] of Object.entries(values))
          if (typeof value === 'string' && value.startsWith('«')) expect(text, `${language} ${key} {${name}}`).toContain(value);
      }
    }
  });

  it('say shared/envelope’s sentences in English exactly as EnvelopeError does', () => {
    const messages = messagesFor('en');
    for (const [code, key] of Object.entries(envelopeSentences))
      expect(messages.format(key)).toBe(new EnvelopeError(code as EnvelopeErrorCode).message);
  });

  it('keep the security sentences: the key stays on the device, opening uses a view', () => {
    const said = (language: (typeof languages)[number], key: MessageKey) => messagesFor(language).format(key);
    expect(said('en', 'cli.send.description')).toContain("the key is only in the link's #fragment, never sent");
    expect(said('de', 'cli.send.description')).toContain('Der Schlüssel steht nur im #Fragment des Links\nund wird nie gesendet');
    expect(said('fr', 'cli.send.description')).toContain('la clé n’est que dans le #fragment du lien, jamais envoyée');
    expect(said('en', 'cli.open.description')).toContain('using one of its views');
    expect(said('de', 'cli.open.description')).toContain('verbraucht dabei einen seiner Aufrufe');
    expect(said('ja', 'cli.open.description')).toContain('閲覧を 1 回使います');
  });

  it('lay out wide characters in two columns', () => {
    expect(columns('views left')).toBe(10);
    expect(columns('残り閲覧回数')).toBe(12);
    expect(columns('剩余查看次数')).toBe(12);
    expect(columns('المتبقية')).toBe(8);
    expect(padColumns('種類', 6)).toBe('種類  ');
  });
});
