/**
 * The one clean-text rule for every text input (submission, enterprise_info, console email, password and
 * names, key names, GraphQL String arguments): no NUL, no lone UTF-16 surrogate (PostgreSQL refuses both in
 * text and jsonb) and no other C0 control character or DEL — except tab, line feed and carriage return in a
 * text where several lines are legitimate. Callers turn the message into a 422 naming the field.
 */

// C0 controls (U+0000–U+001F) and DEL; the multi-line variant lets \t \n \r through.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const SINGLE_LINE_CONTROLS = /[\u0000-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const MULTI_LINE_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Why `text` is not clean, or undefined when it is. */
export function textProblem(text: string, options: { multiline?: boolean } = {}): string | undefined {
  const controls = options.multiline ? MULTI_LINE_CONTROLS : SINGLE_LINE_CONTROLS;
  const match = controls.exec(text);
  if (match) {
    const code = match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return code === '0000'
      ? 'must not contain a NUL character (U+0000)'
      : `must not contain the control character U+${code}${options.multiline ? '' : ' (one line of text, no tabs or line breaks)'}`;
  }
  if (!text.isWellFormed()) return 'must not contain a lone UTF-16 surrogate (not valid Unicode text)';
  return undefined;
}
