/**
 * Copies text: the Clipboard API where the page may use it (a secure context: HTTPS or localhost), else the
 * older select-and-copy, which also works over plain HTTP. Resolves to whether either worked, so the caller
 * can ask the user to copy by hand.
 */
export async function copyText(text: string): Promise<boolean> {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // denied (permissions policy, no user gesture): try the fallback
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.top = '-1000px';
  area.style.opacity = '0';
  // Inside an open modal <dialog> only the dialog's subtree can take focus and selection.
  const host = document.querySelector('dialog[open]') ?? document.body;
  host.appendChild(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}
