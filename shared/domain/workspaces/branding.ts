/**
 * A workspace's branding, checked before it is stored (issue 15): the name a reveal page shows
 * as "sent from <name> on Hushlink", the logo beside it, and the accent its buttons take. All
 * three are display only and can never replace the page's own security text, so what is checked
 * is that they cannot disguise it: no characters that reorder or hide the sentence, an image that
 * is only an image, and a colour that stays readable. Every problem is reported at once.
 */
import { workspaceLimits } from '../../limits.ts';
import { Invalid, type FieldIssue } from '../refusals.ts';
import { accentShortfalls, formatRatio, isHexColour } from './accent.ts';
import { LogoError, parseLogo } from './logo.ts';
import type { WorkspaceBranding } from './model.ts';

export { contrastRatio } from './accent.ts';

/** The branding asked for; a refused part is named as clients name it (`display_name`, `logo`, `accent`). */
export interface BrandingInput {
  displayName: string;
  /** Absent or null: no logo. */
  logo?: string | null;
  /** Absent or null: the page's own accent. */
  accent?: string | null;
}

/**
 * What a name may not hold: controls (C0, DEL, C1), line and paragraph separators, lone
 * surrogates, every bidi control (embeddings, overrides, isolates and the marks LRM, RLM, ALM),
 * which could reorder the sentence the name sits in, and the interlinear annotation characters,
 * which some renderers use to hide text.
 */
const refusedInName = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}\p{Bidi_Control}\u{FFF9}-\u{FFFB}]/u;

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The branding to store (name trimmed, logo's URL and accent normalised), or invalid with one issue per problem. */
export function checkBranding(input: BrandingInput): WorkspaceBranding {
  const errors: FieldIssue[] = [];
  const refuse = (field: 'display_name' | 'logo' | 'accent', message: string) => errors.push({ field, message });

  // Lengths count UTF-16 code units, as the request schema's bounds do (zod's maxLength).
  const displayName = input.displayName.trim();
  const { min, max } = workspaceLimits.displayName;
  if (displayName.length < min || displayName.length > max) refuse('display_name', `must be ${min} to ${max} characters long once trimmed`);
  const refused = refusedInName.exec(displayName);
  if (refused)
    refuse(
      'display_name',
      `must not contain control or bidirectional formatting characters (${codePoint(refused[0])} at ${refused.index})`,
    );

  let logo: string | null = null;
  if (input.logo != null) {
    try {
      logo = parseLogo(input.logo).dataUrl;
    } catch (error) {
      if (!(error instanceof LogoError)) throw error;
      refuse('logo', error.message);
    }
  }

  let accent: string | null = null;
  if (input.accent != null) {
    if (!isHexColour(input.accent)) {
      refuse('accent', 'must be a colour written #rrggbb');
    } else {
      accent = input.accent.toLowerCase();
      const [worst] = accentShortfalls(accent);
      if (worst) {
        refuse(
          'accent',
          `gives a contrast of ${formatRatio(worst.ratio)} as ${worst.use} (${worst.foreground} on ${worst.background}); at least ${workspaceLimits.accentContrast}:1 is needed`,
        );
      }
    }
  }

  if (errors.length > 0) throw new Invalid('The branding is not valid.', errors);
  return { displayName, logo, accent };
}
