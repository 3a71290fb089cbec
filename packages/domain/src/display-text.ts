// Text that people read (a payment's description, metadata values, a merchant's name, a webhook
// endpoint's description) and that wallets show (Solana Pay's label and message): it may hold any
// language, but not the characters that make it show something else than it says (docs/api.md,
// "Text shown to people"). Refused where it comes in, with a VALIDATION_ERROR naming the field;
// stripped where it goes out, for what was recorded before the rule.
//
// Refused: NUL and the other C0 controls but tab, line feed and carriage return, DEL and the C1
// controls; and the Unicode bidirectional embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069), which reorder what follows them (CVE-2021-42574, "Trojan Source"). The marks
// U+200E, U+200F and U+061C stay allowed: they change no order beyond their own position, and
// right-to-left text needs them.

/** what displayTextProblem refuses: a control (\p{Cc}) but tab, LF and CR; an embedding, override or isolate */
const FORBIDDEN = /[^\P{Cc}\t\n\r]|[\u202A-\u202E\u2066-\u2069]/u
const FORBIDDEN_GLOBAL = new RegExp(FORBIDDEN.source, 'gu')

/** why the text may not be shown as it is; null when it may */
export function displayTextProblem(text: string): string | null {
  const found = FORBIDDEN.exec(text)
  if (found === null) return null
  const codePoint = `U+${(found[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
  const what = /[\u202A-\u202E\u2066-\u2069]/u.test(found[0])
    ? 'a bidirectional override, embedding or isolate'
    : 'a control character'
  return `must not contain ${what} (${codePoint} at character ${[...text.slice(0, found.index)].length + 1})`
}

/** the text without what displayTextProblem refuses: for text recorded before it was refused */
export function withoutHiddenControls(text: string): string {
  return text.replace(FORBIDDEN_GLOBAL, '')
}
