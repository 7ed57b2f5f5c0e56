/** Escapes text for an ECharts tooltip, which ECharts renders as HTML (names can come from a submission). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
