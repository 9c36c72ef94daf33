import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../../web/src/fieldErrors.ts';
import { PageCursor } from '../../web/src/pageCursor.ts';
import { screenSwitcher } from '../../web/src/screenSwitcher.ts';

// The web client's shared helpers that hold logic, without a DOM: elements are stood in for by
// objects with the few members the helpers touch, and what they were left showing is read back.

class FakeElement {
  hidden = true;
  textContent = '';
  children: unknown[] = [];
  dataset: Record<string, string> = {};
  readonly attributes = new Map<string, string>();
  constructor(
    readonly name: string,
    private readonly focused: string[],
  ) {}
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name);
  }
  replaceChildren(...nodes: unknown[]): void {
    this.children = nodes;
  }
  focus(): void {
    this.focused.push(this.name);
  }
}

const as = (element: FakeElement) => element as unknown as HTMLElement;

describe('the paged panel’s cursor', () => {
  it('reads the first page, then the next from the cursor given, until none is given', () => {
    const cursor = new PageCursor();
    expect(cursor.loaded).toBe(false);
    expect(cursor.begin(false)).toBeNull();
    expect(cursor.took(10, 'c1')).toBe(true);
    cursor.end();
    expect(cursor.loaded).toBe(true);
    expect(cursor.begin(true)).toBe('c1');
    expect(cursor.took(10, 'c2')).toBe(true);
    cursor.end();
    expect(cursor.begin(true)).toBe('c2');
    expect(cursor.took(3, null)).toBe(false);
    cursor.end();
    // Refresh starts from the first page again, whatever was read before.
    expect(cursor.begin(false)).toBeNull();
  });

  it('ends the list at an empty page even when the server gives a cursor', () => {
    const cursor = new PageCursor();
    cursor.begin(false);
    expect(cursor.took(10, 'c1')).toBe(true);
    cursor.end();
    expect(cursor.begin(true)).toBe('c1');
    expect(cursor.took(0, 'c2')).toBe(false);
    cursor.end();
    expect(cursor.begin(true)).toBeNull();
  });

  it('starts no second read while one is under way, and one again once it ended (failed or not)', () => {
    const cursor = new PageCursor();
    expect(cursor.begin(false)).toBeNull();
    expect(cursor.begin(false)).toBeUndefined();
    expect(cursor.begin(true)).toBeUndefined();
    // A read that failed: nothing was taken, so the panel is not loaded and keeps no cursor.
    cursor.end();
    expect(cursor.loaded).toBe(false);
    expect(cursor.begin(true)).toBeNull();
  });
});

describe('the field-error helper', () => {
  function form() {
    const focused: string[] = [];
    const make = (name: string) => new FakeElement(name, focused);
    const fields = {
      name: { input: make('name'), error: make('name-error') },
      slug: { input: make('slug'), error: make('slug-error') },
      region: { input: make('region'), error: make('region-error') },
    };
    const box = make('box');
    const text = make('box-text');
    const parts = Object.fromEntries(
      Object.entries(fields).map(([field, part]) => [field, { input: as(part.input), error: as(part.error) }]),
    ) as Record<keyof typeof fields, { input: HTMLElement; error: HTMLElement }>;
    return { fields, box, text, focused, errors: fieldErrors(parts, as(box), as(text)) };
  }

  it('says each message under its field, marks it, and focuses the first field in the form’s order', () => {
    const { fields, box, focused, errors } = form();
    errors.show({ region: 'Region: no such region.', slug: 'Slug: taken.' });
    expect(fields.slug.error).toMatchObject({ hidden: false, textContent: 'Slug: taken.' });
    expect(fields.region.error).toMatchObject({ hidden: false, textContent: 'Region: no such region.' });
    expect(fields.name.error.hidden).toBe(true);
    expect([...fields.slug.input.attributes]).toEqual([['aria-invalid', 'true']]);
    expect(fields.name.input.attributes.size).toBe(0);
    expect(box.hidden).toBe(true);
    expect(focused).toEqual(['slug']);
  });

  it('puts what belongs to no field in the box’s text, and focuses the box when no field is refused', () => {
    const { box, text, focused, errors } = form();
    errors.show({}, 'Too many requests: try again in 60 seconds.');
    expect(box.hidden).toBe(false);
    expect(text.children).toEqual(['Too many requests: try again in 60 seconds.']);
    expect(box.children).toEqual([]);
    expect(focused).toEqual(['box']);
    // An empty message is none.
    errors.show({ name: '' }, null);
    expect(focused).toEqual(['box', 'box']);
  });

  it('clears every message and mark, or one field’s', () => {
    const { fields, box, errors } = form();
    errors.show({ name: 'Give it a name.', slug: 'Taken.' }, 'And something else.');
    errors.clearField('name');
    expect(fields.name.error.hidden).toBe(true);
    expect(fields.name.input.attributes.size).toBe(0);
    expect(fields.slug.error.hidden).toBe(false);
    expect(box.hidden).toBe(false);
    errors.clear();
    expect(Object.values(fields).every((part) => part.error.hidden && part.input.attributes.size === 0)).toBe(true);
    expect(box.hidden).toBe(true);
  });
});

describe('the screen switcher', () => {
  it('shows the one screen named, hides the others, and names it on the holder', () => {
    const make = (name: string) => new FakeElement(name, []);
    const screens = { loading: make('loading'), ready: make('ready'), message: make('message') };
    screens.loading.hidden = false;
    const holder = make('html');
    const show = screenSwitcher(
      { loading: as(screens.loading), ready: as(screens.ready), message: as(screens.message) },
      'step',
      as(holder),
    );
    show('ready');
    expect([screens.loading.hidden, screens.ready.hidden, screens.message.hidden]).toEqual([true, false, true]);
    expect(holder.dataset).toEqual({ step: 'ready' });
    show('message');
    expect([screens.loading.hidden, screens.ready.hidden, screens.message.hidden]).toEqual([true, true, false]);
    expect(holder.dataset).toEqual({ step: 'message' });
  });
});
