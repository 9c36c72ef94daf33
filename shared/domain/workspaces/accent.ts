/**
 * A workspace's accent colour and the contrast it must keep (issue 15). Pure and free of the
 * error module, so the branding form's live preview bundles it without zod.
 *
 * Where a branded reveal page draws the accent (web/public/styles.css, `--accent`): as the colour
 * of links and accent text on the light theme's card (`--surface`) and page (`--bg`), and as the
 * fill of primary buttons under their label (`--accent-text`). A colour dark enough to be read
 * on the light page cannot also be read on the dark one (a relative luminance of at most 0.168
 * there, of at least 0.235 on the dark card #1c1e29), so in the dark theme the accent is never text: links keep
 * the theme's own, and the accent only fills, under the same white label checked here.
 */
import { workspaceLimits } from '../../limits.ts';

/** The theme colours the accent meets, as styles.css defines them (a unit test holds them equal). */
export const pageColours = {
  /** Light theme `--surface`: the reveal page's card, where its text and links are. */
  surface: '#ffffff',
  /** Light theme `--bg`: around the card, and the background of list items. */
  background: '#f6f7fb',
  /** The label on a branded primary button, in both themes (the light theme's `--accent-text`). */
  label: '#ffffff',
} as const;

const hexColour = /^#[0-9a-f]{6}$/i;

export const isHexColour = (text: string): boolean => hexColour.test(text);

/** sRGB channel to linear light. 0.04045 is IEC 61966-2-1's threshold (WCAG 2.0 printed 0.03928); no 8-bit value falls between them. */
const linear = (channel: number): number => {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

/** WCAG 2 relative luminance of `#rrggbb`: 0 for black, 1 for white. */
export function relativeLuminance(colour: string): number {
  if (!hexColour.test(colour)) throw new TypeError(`not a #rrggbb colour: ${colour}`);
  const value = Number.parseInt(colour.slice(1), 16);
  return 0.2126 * linear(value >> 16) + 0.7152 * linear((value >> 8) & 0xff) + 0.0722 * linear(value & 0xff);
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours, from 1 to 21, unrounded (4.499 is below 4.5). */
export function contrastRatio(a: string, b: string): number {
  const [lighter, darker] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** One place the accent is drawn, with the colour it must stand out from. */
export interface AccentUse {
  use: 'text on the card' | 'text on the page' | 'button label on the accent';
  foreground: string;
  background: string;
  ratio: number;
}

/** Every pairing of the accent on a branded page, with its ratio (the preview shows them). */
export function accentUses(accent: string): AccentUse[] {
  const colour = accent.toLowerCase();
  const pair = (use: AccentUse['use'], foreground: string, background: string): AccentUse => ({
    use,
    foreground,
    background,
    ratio: contrastRatio(foreground, background),
  });
  return [
    pair('text on the card', colour, pageColours.surface),
    pair('text on the page', colour, pageColours.background),
    pair('button label on the accent', pageColours.label, colour),
  ];
}

/** The uses that fall short of `workspaceLimits.accentContrast`, worst first. */
export const accentShortfalls = (accent: string): AccentUse[] =>
  accentUses(accent)
    .filter((use) => use.ratio < workspaceLimits.accentContrast)
    .sort((a, b) => a.ratio - b.ratio);

/** A ratio as people read it, rounded down so a refused 4.499 never shows as 4.50. */
export const formatRatio = (ratio: number): string => `${(Math.floor(ratio * 100) / 100).toFixed(2)}:1`;
