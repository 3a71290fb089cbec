import { describe, expect, it } from 'vitest'
import { displayTextProblem, withoutHiddenControls } from './display-text.js'

describe('displayTextProblem', () => {
  it.each([
    'Order #1001',
    'Zeile eins\nZeile zwei\r\n\tmit Tab',
    'طلب رقم ١٠٠١',
    // the marks change no order beyond their own position: right-to-left text needs them
    'abc\u200Fdef\u200E\u061C',
    '😀 Café',
  ])('lets %j be shown', (text) => {
    expect(displayTextProblem(text)).toBeNull()
  })

  it.each([
    ['a\u0000b', 'a control character (U+0000 at character 2)'],
    ['\u0007', 'a control character (U+0007 at character 1)'],
    ['x\u007F', 'a control character (U+007F at character 2)'],
    ['x\u0085', 'a control character (U+0085 at character 2)'],
    ['😀evil\u202Egnp.exe', 'a bidirectional override, embedding or isolate (U+202E at character 6)'],
    ['\u202A', 'a bidirectional override, embedding or isolate (U+202A at character 1)'],
    ['\u2066x\u2069', 'a bidirectional override, embedding or isolate (U+2066 at character 1)'],
    ['x\u2069', 'a bidirectional override, embedding or isolate (U+2069 at character 2)'],
  ])('refuses %j, naming the character and where it is', (text, what) => {
    expect(displayTextProblem(text)).toBe(`must not contain ${what}`)
  })
})

describe('withoutHiddenControls', () => {
  it('strips what is refused and keeps the rest, marks and line breaks included', () => {
    expect(withoutHiddenControls('a\u0000b\u202Ec\u2066d\u200F\ne')).toBe('abcd\u200F\ne')
    expect(withoutHiddenControls('plain')).toBe('plain')
  })
})
