/**
 * What a sender chose (a file name, a request's prompt) as it may reach this terminal: without
 * control characters (escape sequences could rewrite the screen or the window title) and without
 * bidirectional overrides (`‮txt.exe` shows as `exe.txt`). Line breaks and tabs are kept only
 * where a text may have several lines.
 */
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const controlsAndBreaks = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export const printable = (text: string, options: { lines?: boolean } = {}): string =>
  text.replace(options.lines ? controls : controlsAndBreaks, '');
