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
import { accentShortfalls, accentUses, formatRatio, isHexColour } from '../../shared/domain/workspaces/accent.ts';
import { LogoError, logoTypes, parseLogo } from '../../shared/domain/workspaces/logo.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { ApiError, problemMessages } from './api.ts';
import { showProblem } from './accountPage.ts';
import { announce, byId, element, setVisible } from './dom.ts';
import { fieldErrors } from './fieldErrors.ts';
import { SignedOutError, withAccess } from './session.ts';
import { explainRefusal, type WorkspaceContext } from './workspaceContext.ts';
import { planLabel } from './workspaceText.ts';
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
  logoNote.textContent = logo ? 'A logo is set.' : '';
  accentText.value = branding?.accent ?? '';
  accentPicker.value = branding?.accent ?? defaultAccent;
  const allowed = planIncludes(workspace.plan, 'branding');
  showPlanNote(allowed ? null : workspace.plan);
  fields.disabled = !allowed;
  update();
}

function showPlanNote(plan: string | null): void {
  planNote.textContent = plan === null ? '' : `Branding comes with the Team plan; this workspace is on ${planLabel(plan)}.`;
  setVisible(planNote, plan !== null);
}

/** The accent typed, as the server will read it: null when empty, else what was typed (checked separately). */
const accentValue = (): string | null => (accentText.value.trim() === '' ? null : accentText.value.trim().toLowerCase());

/** Redraws the preview and the contrast feedback from the form as it is. */
function update(): void {
  previewName.textContent = displayName.value.trim() || 'your name';
  if (logo) previewLogo.src = logo;
  else previewLogo.removeAttribute('src');
  setVisible(previewLogo, logo !== null);
  setVisible(removeLogo, logo !== null);

  const accent = accentValue();
  contrast.replaceChildren();
  if (accent === null || !isHexColour(accent)) {
    previewPage.style.removeProperty('--brand-accent');
    delete previewPage.dataset.accent;
    verdict.textContent =
      accent === null
        ? 'No accent colour: the page keeps Hushlink’s own colours.'
        : 'Write the colour as # and six hexadecimal digits, such as #1f6feb.';
    verdict.dataset.verdict = accent === null ? 'none' : 'invalid';
    return;
  }
  // Checked #rrggbb only: nothing else reaches the style.
  previewPage.style.setProperty('--brand-accent', accent);
  previewPage.dataset.accent = accent;
  for (const use of accentUses(accent)) {
    const ok = use.ratio >= workspaceLimits.accentContrast;
    const row = element('li', ok ? 'contrast-ok' : 'contrast-low', `${ok ? '✓' : '✗'} ${use.use}: ${formatRatio(use.ratio)}`);
    row.dataset.ok = String(ok);
    contrast.append(row);
  }
  const [worst] = accentShortfalls(accent);
  verdict.textContent = worst
    ? `Too little contrast: as ${worst.use} it gives ${formatRatio(worst.ratio)}, and at least ${workspaceLimits.accentContrast}:1 is needed, so it would be refused. Choose a darker colour.`
    : `Readable wherever it is drawn (at least ${workspaceLimits.accentContrast}:1 everywhere).`;
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
    return refuse(`“${file.name}” is not a PNG, JPEG or WebP image. Other formats, SVG included, are never accepted.`);
  }
  if (file.size > workspaceLimits.logoBytes)
    return refuse(`“${file.name}” is ${formatBytes(file.size)}; a logo is at most ${formatBytes(workspaceLimits.logoBytes)}.`);
  const dataUrl = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  }).catch(() => null);
  if (dataUrl === null) return refuse(`“${file.name}” could not be read.`);
  try {
    const parsed = parseLogo(dataUrl);
    logo = parsed.dataUrl;
    logoNote.textContent = `“${file.name}”: ${parsed.width}×${parsed.height} pixels, ${formatBytes(parsed.bytes)}.`;
    update();
    announce('Logo chosen: see the preview.');
  } catch (error) {
    if (!(error instanceof LogoError)) throw error;
    refuse(`“${file.name}” cannot be used: the logo ${error.message}.`);
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
    logoNote.textContent = 'No logo.';
    update();
    announce('Logo removed from the preview; save to remove it from the page.');
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
    announce('No accent colour: the page keeps Hushlink’s own.');
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
  if (name.length < min || name.length > max) problems.display_name = `The name is ${min} to ${max} characters.`;
  if (accent !== null && !isHexColour(accent)) problems.accent = 'Write the colour as # and six hexadecimal digits, such as #1f6feb.';
  else if (accent !== null && accentShortfalls(accent).length > 0) problems.accent = `${verdict.textContent} Nothing was sent.`;
  if (Object.keys(problems).length > 0) return formErrors.show(problems, null);

  fields.disabled = true;
  announce('Saving the branding…');
  try {
    await withAccess((token) => workspacesApi.setBranding(token, context.workspace.id, { display_name: name, logo, accent }));
    await context.refresh();
    saved.textContent = 'Branding saved. Pages of secrets sent in this workspace show it from now on.';
    setVisible(saved, true);
    saved.focus();
    announce('Branding saved.');
  } catch (error) {
    announce('');
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError && error.status === 400) {
      const messages: Partial<Record<Field, string>> = {};
      const other: string[] = [];
      for (const entry of error.problem.errors ?? []) {
        const field = /^body\.(display_name|logo|accent)$/.exec(entry.path ?? '')?.[1] as Field | undefined;
        if (field) messages[field] = `${messages[field] ? `${messages[field]} ` : ''}${sentence(entry.message)}`;
        else other.push(entry.message);
      }
      if (Object.keys(messages).length === 0 && other.length === 0) other.push(...problemMessages(error));
      return formErrors.show(messages, other.length > 0 ? other.join(' ') : null);
    }
    if (error instanceof ApiError && error.status === 403 && error.problem.reason === 'plan') {
      showPlanNote(typeof error.problem.plan === 'string' ? error.problem.plan : context.workspace.plan);
      fields.disabled = true;
      planNote.focus();
      return;
    }
    await explainRefusal(context, error, errors, 'The branding was not saved: ');
  }
}
