/**
 * A workspace's branding form (`/workspace?id=`, owners and admins, the Team plan): the name
 * shown ("Sent from <name> on Hushlink"), a logo (a PNG, JPEG or WebP file of at most 64 KiB,
 * read here as a `data:` URL and checked with the server's own `parseLogo`; never SVG) and an
 * accent colour, with a live preview of the reveal page's top (its band as revealBranding.ts
 * draws it: the name in a `<bdi>`, the logo, the accent) and the accent's contrast from
 * `accent.ts` before anything is sent (a colour the server would refuse is not sent).
 *
 * The preview draws the accent through a CSS custom property set with the CSSOM
 * (`style.setProperty`), which the CSP's `style-src 'self'` does not govern (it forbids style
 * attributes in markup and inline `<style>`), and only after the value is checked as `#rrggbb`.
 */
import { planIncludes } from '../../shared/domain/plans.ts';
import { type AccentUse, accentShortfalls, accentUses, isHexColour } from '../../shared/domain/workspaces/accent.ts';
import { LogoError, logoTypes, parseLogo } from '../../shared/domain/workspaces/logo.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { ApiError, problemMessages } from './api.ts';
import { showProblem } from './accountPage.ts';
import { announce, byId, element, setVisible } from './dom.ts';
import { fieldErrors } from './fieldErrors.ts';
import { language, locale, t, tNodes } from './i18n.ts';
import { SignedOutError, withAccess } from './session.ts';
import { planName } from './workspaceAuditValues.ts';
import { explainRefusal, sentences, serverWords, type WorkspaceContext } from './workspaceContext.ts';
import { workspacesApi } from './workspacesApi.ts';
import { formatBytes } from './progress.ts';

const form = byId<HTMLFormElement>('branding-form');
const fields = byId<HTMLFieldSetElement>('branding-fields');
const planNote = byId('branding-plan');
const errors = byId('branding-errors');
const saved = byId('branding-saved');
const displayName = byId<HTMLInputElement>('brand-name');
const logoFile = byId<HTMLInputElement>('brand-logo');
const logoNote = byId('brand-logo-note');
const removeLogo = byId<HTMLButtonElement>('brand-logo-remove');
const accentPicker = byId<HTMLInputElement>('brand-accent-picker');
const accentText = byId<HTMLInputElement>('brand-accent');
const accentClear = byId<HTMLButtonElement>('brand-accent-clear');
const contrast = byId<HTMLUListElement>('brand-contrast');
const verdict = byId('brand-contrast-verdict');
const formErrors = fieldErrors(
  {
    display_name: { input: displayName, error: byId('brand-name-error') },
    logo: { input: logoFile, error: byId('brand-logo-error') },
    accent: { input: accentText, error: byId('brand-accent-error') },
  },
  errors,
);
type Field = 'display_name' | 'logo' | 'accent';

const previewPage = byId('preview-page');
const previewName = byId('preview-name');
const previewLogo = byId<HTMLImageElement>('preview-logo');

// Sentences around an element are put together in the page's language: the name's hint (the
// placeholder in italics) and the preview's band (the name in its <bdi>, as the reveal page draws it).
byId('brand-name-hint').replaceChildren(
  ...tNodes('workspaceBranding.name.hint', {
    name: element('em', '', t('workspaceBranding.name.hintName')),
    max: workspaceLimits.displayName.max,
  }),
);
previewName.closest('.brand-line')?.replaceChildren(...tNodes('workspaceBranding.preview.sentFrom', { name: previewName }));

/** Where the accent is drawn, as the messages' `select` names it. */
const useKeys: Record<AccentUse['use'], string> = {
  'text on the card': 'card',
  'text on the page': 'page',
  'button label on the accent': 'label',
};
/** A ratio as people read it ("4.50:1"), rounded down so a refused 4.499 never shows as 4.50. */
const ratioFormat = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const formatRatio = (ratio: number): string => `${ratioFormat.format(Math.floor(ratio * 100) / 100)}:1`;
/** The least contrast allowed, as the limit is written ("4.5:1"). */
const leastRatio = `${new Intl.NumberFormat(locale).format(workspaceLimits.accentContrast)}:1`;

/** The default accent the picker shows when none is set (styles.css `--accent`, light). */
const defaultAccent = '#3b3fbf';

/** The logo as it will be sent: a checked data: URL, or null for none. */
let logo: string | null = null;

export function renderBranding(context: WorkspaceContext): void {
  const { workspace } = context;
  const branding = workspace.branding;
  formErrors.clear();
  setVisible(saved, false);
  displayName.value = branding?.display_name ?? workspace.name.slice(0, workspaceLimits.displayName.max);
  logo = branding?.logo ?? null;
  logoFile.value = '';
  logoNote.textContent = logo ? t('workspaceBranding.logo.set') : '';
  accentText.value = branding?.accent ?? '';
  accentPicker.value = branding?.accent ?? defaultAccent;
  const allowed = planIncludes(workspace.plan, 'branding');
  showPlanNote(allowed ? null : workspace.plan);
  fields.disabled = !allowed;
  update();
}

function showPlanNote(plan: string | null): void {
  planNote.textContent = plan === null ? '' : t('workspaceBranding.planNote', { plan: planName(plan) });
  setVisible(planNote, plan !== null);
}

/** The accent typed, as the server will read it: null when empty, else what was typed (checked separately). */
const accentValue = (): string | null => (accentText.value.trim() === '' ? null : accentText.value.trim().toLowerCase());

/** Redraws the preview and the contrast feedback from the form as it is. */
function update(): void {
  // The name typed is data; the placeholder for none is words.
  previewName.textContent = displayName.value.trim() || t('workspaceBranding.preview.defaultName');
  previewName.translate = displayName.value.trim() === '';
  if (logo) previewLogo.src = logo;
  else previewLogo.removeAttribute('src');
  setVisible(previewLogo, logo !== null);
  setVisible(removeLogo, logo !== null);

  const accent = accentValue();
  contrast.replaceChildren();
  if (accent === null || !isHexColour(accent)) {
    previewPage.style.removeProperty('--brand-accent');
    delete previewPage.dataset.accent;
    verdict.textContent = accent === null ? t('workspaceBranding.accent.none') : t('workspaceBranding.accent.invalid');
    verdict.dataset.verdict = accent === null ? 'none' : 'invalid';
    return;
  }
  // Checked #rrggbb only: nothing else reaches the style.
  previewPage.style.setProperty('--brand-accent', accent);
  previewPage.dataset.accent = accent;
  for (const use of accentUses(accent)) {
    const ok = use.ratio >= workspaceLimits.accentContrast;
    const row = element(
      'li',
      ok ? 'contrast-ok' : 'contrast-low',
      t('workspaceBranding.contrast.row', { mark: ok ? '✓' : '✗', use: useKeys[use.use], ratio: formatRatio(use.ratio) }),
    );
    row.dataset.ok = String(ok);
    contrast.append(row);
  }
  const [worst] = accentShortfalls(accent);
  verdict.textContent = worst
    ? t('workspaceBranding.contrast.low', { use: useKeys[worst.use], ratio: formatRatio(worst.ratio), least: leastRatio })
    : t('workspaceBranding.contrast.ok', { least: leastRatio });
  verdict.dataset.verdict = worst ? 'low' : 'ok';
}

const sentence = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;

/** Reads the chosen file as a data: URL and checks it as the server will; refused files leave the logo as it was. */
async function chooseLogo(): Promise<void> {
  formErrors.clear();
  const file = logoFile.files?.[0];
  if (!file) return;
  const refuse = (message: string) => {
    logoFile.value = '';
    formErrors.show({ logo: message }, null);
  };
  if (!(logoTypes as readonly string[]).includes(file.type)) {
    return refuse(t('workspaceBranding.logo.notImage', { file: file.name }));
  }
  if (file.size > workspaceLimits.logoBytes)
    return refuse(
      t('workspaceBranding.logo.tooLarge', { file: file.name, size: formatBytes(file.size), max: formatBytes(workspaceLimits.logoBytes) }),
    );
  const dataUrl = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  }).catch(() => null);
  if (dataUrl === null) return refuse(t('workspaceBranding.logo.unreadable', { file: file.name }));
  try {
    const parsed = parseLogo(dataUrl);
    logo = parsed.dataUrl;
    logoNote.textContent = t('workspaceBranding.logo.chosen', {
      file: file.name,
      width: String(parsed.width),
      height: String(parsed.height),
      size: formatBytes(parsed.bytes),
    });
    update();
    announce(t('workspaceBranding.logo.chosenAnnounce'));
  } catch (error) {
    if (!(error instanceof LogoError)) throw error;
    // Why, in the check's own words (English, as the service says it); another language says it in general.
    refuse(
      language === 'en'
        ? t('workspaceBranding.logo.invalidBecause', { file: file.name, reason: error.message })
        : t('workspaceBranding.logo.invalid', { file: file.name }),
    );
  }
}

export function wireBrandingForm(context: () => WorkspaceContext): void {
  // A field being changed is no longer what was refused.
  const edited = (field: Field) => formErrors.clearField(field);
  displayName.addEventListener('input', () => {
    edited('display_name');
    update();
  });
  logoFile.addEventListener('change', () => void chooseLogo());
  removeLogo.addEventListener('click', () => {
    logo = null;
    logoFile.value = '';
    logoNote.textContent = t('workspaceBranding.logo.none');
    update();
    announce(t('workspaceBranding.logo.removed'));
    logoFile.focus();
  });
  accentPicker.addEventListener('input', () => {
    accentText.value = accentPicker.value;
    edited('accent');
    update();
  });
  accentText.addEventListener('input', () => {
    edited('accent');
    const value = accentValue();
    if (value && isHexColour(value)) accentPicker.value = value;
    update();
  });
  accentClear.addEventListener('click', () => {
    accentText.value = '';
    edited('accent');
    accentPicker.value = defaultAccent;
    update();
    announce(t('workspaceBranding.accent.cleared'));
    accentText.focus();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void save(context());
  });
}

async function save(context: WorkspaceContext): Promise<void> {
  if (fields.disabled) return;
  formErrors.clear();
  setVisible(saved, false);
  const name = displayName.value.trim();
  const accent = accentValue();
  const problems: Partial<Record<Field, string>> = {};
  const { min, max } = workspaceLimits.displayName;
  if (name.length < min || name.length > max) problems.display_name = t('workspaceBranding.name.length', { min, max });
  if (accent !== null && !isHexColour(accent)) problems.accent = t('workspaceBranding.accent.invalid');
  else if (accent !== null && accentShortfalls(accent).length > 0)
    problems.accent = sentences(verdict.textContent ?? '', t('workspaceBranding.nothingSent'));
  if (Object.keys(problems).length > 0) return formErrors.show(problems, null);

  fields.disabled = true;
  announce(t('workspaceBranding.saving'));
  try {
    await withAccess((token) => workspacesApi.setBranding(token, context.workspace.id, { display_name: name, logo, accent }));
    await context.refresh();
    saved.textContent = t('workspaceBranding.saved');
    setVisible(saved, true);
    saved.focus();
    announce(t('workspaceBranding.savedAnnounce'));
  } catch (error) {
    announce('');
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError && error.status === 400) {
      const messages: Partial<Record<Field, string>> = {};
      const other: string[] = [];
      for (const entry of error.problem.errors ?? []) {
        const field = /^body\.(display_name|logo|accent)$/.exec(entry.path ?? '')?.[1] as Field | undefined;
        if (field)
          messages[field] = serverWords(
            `${messages[field] ? `${messages[field]} ` : ''}${sentence(entry.message)}`,
            t('workspaceBranding.valueRefused'),
          );
        else if (language === 'en') other.push(entry.message);
      }
      if (Object.keys(messages).length === 0 && other.length === 0) other.push(...problemMessages(error));
      return formErrors.show(messages, other.length > 0 ? sentences(...other) : null);
    }
    if (error instanceof ApiError && error.status === 403 && error.problem.reason === 'plan') {
      showPlanNote(typeof error.problem.plan === 'string' ? error.problem.plan : context.workspace.plan);
      fields.disabled = true;
      planNote.focus();
      return;
    }
    await explainRefusal(context, error, errors, t('workspaceBranding.failed'));
  }
}
