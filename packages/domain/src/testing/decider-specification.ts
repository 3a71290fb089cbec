// given(events).when(command).then(events) for deciders: the given events are folded with evolve,
// decide runs on the result, and the produced events must fold too.

import { expect } from 'vitest'
import type { ErrorCode } from '../errors.js'

export interface Decider<State, Command, Event> {
  decide(command: Command, state: State): Event[]
  evolve(state: State, event: Event): State
  initialState: State
}

export interface DeciderThen<Event> {
  then(expected: Event[]): void
  thenNothingHappens(): void
  thenThrows(code: ErrorCode, message?: string | RegExp): void
}

export function deciderSpecification<State, Command, Event>(
  decider: Decider<State, Command, Event>,
): (given: Event[]) => { when(command: Command): DeciderThen<Event> } {
  return (given) => ({
    when: (command) => {
      const decide = () => decider.decide(command, given.reduce(decider.evolve, decider.initialState))
      return {
        // biome-ignore lint/suspicious/noThenProperty: given/when/then is the vocabulary of the spec; nothing awaits it
        then: (expected) => {
          const produced = decide()
          expect(produced).toEqual(expected)
          expect(() => [...given, ...produced].reduce(decider.evolve, decider.initialState)).not.toThrow()
        },
        thenNothingHappens: () => {
          expect(decide()).toEqual([])
        },
        thenThrows: (code, message) => {
          let thrown: unknown
          try {
            decide()
          } catch (error) {
            thrown = error
          }
          expect(thrown, 'decide should have thrown').toBeInstanceOf(Error)
          expect(thrown).toMatchObject({ name: 'DomainError', code })
          if (message !== undefined) expect((thrown as Error).message).toMatch(message)
        },
      }
    },
  })
}
