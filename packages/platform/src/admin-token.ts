// The operator's admin token (ADMIN_TOKEN): the one credential of the admin API, which issues API keys
// and reads every merchant. A short or patterned token can be guessed over the network, so a weak one
// stops the start with a message that says how to make a good one. The rule is checked wherever a
// token is configured; the tokens the project generates itself always pass it.

import { randomToken } from './secrets.js'

export const ADMIN_TOKEN_MIN_LENGTH = 32

export const ADMIN_TOKEN_HINT = 'generate one with `openssl rand -hex 32`'

/** fewer different characters than this is a repeated pattern ('abababab…'), not a random token */
const MIN_DISTINCT_CHARACTERS = 8

/**
 * Placeholders people leave in place. None can appear in hex, and each is long enough that a random
 * base64url or alphanumeric token of this length holds one less often than once in ten million.
 */
const PLACEHOLDERS = [
  'changeme',
  'change-me',
  'change_me',
  'password',
  'example',
  'placeholder',
  'replaceme',
  'secret',
]

/**
 * What is wrong with `token` as an admin token, or null when it is strong enough. The message never
 * repeats the token.
 */
export function adminTokenProblem(token: string): string | null {
  if (token.length < ADMIN_TOKEN_MIN_LENGTH) {
    return `too short: at least ${ADMIN_TOKEN_MIN_LENGTH} characters, got ${token.length}; ${ADMIN_TOKEN_HINT}`
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    return `only printable ASCII characters without spaces (it is sent in an Authorization header); ${ADMIN_TOKEN_HINT}`
  }
  if (new Set(token).size < MIN_DISTINCT_CHARACTERS) {
    return `a repeated pattern, not a random token (fewer than ${MIN_DISTINCT_CHARACTERS} different characters); ${ADMIN_TOKEN_HINT}`
  }
  if (isMostlyRuns(token)) {
    return `a run of neighbouring characters (such as abcd… or 1234…), not a random token; ${ADMIN_TOKEN_HINT}`
  }
  const lower = token.toLowerCase()
  const placeholder = PLACEHOLDERS.find((word) => lower.includes(word))
  if (placeholder !== undefined)
    return `looks like a placeholder (contains '${placeholder}'); ${ADMIN_TOKEN_HINT}`
  return null
}

/**
 * Three steps in four or more between neighbouring characters go up or down by one or repeat
 * ('abcdef…', '98765…', 'aabbcc…'). A random hex token takes such a step about one time in six;
 * that 32 of them take 24 of 31 is far less likely than guessing the token.
 */
function isMostlyRuns(token: string): boolean {
  let runSteps = 0
  for (let index = 1; index < token.length; index += 1) {
    if (Math.abs(token.charCodeAt(index) - token.charCodeAt(index - 1)) <= 1) runSteps += 1
  }
  return runSteps * 4 >= (token.length - 1) * 3
}

/** a new admin token: 'adm_' and 32 random bytes in base64url; it always passes adminTokenProblem */
export function generateAdminToken(): string {
  for (;;) {
    const token = randomToken('adm', 32)
    if (adminTokenProblem(token) === null) return token
  }
}
