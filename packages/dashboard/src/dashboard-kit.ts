// What the dashboard's routes share with routes registered from dashboard-routes.ts in files of
// their own (money-routes.ts): the signed-in check, the page frame, the form helpers.

import type { DashboardUser } from '@chainpay/ports'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { DashboardAction } from './access-rules.js'
import type { PageFrame, renderMessagePage } from './dashboard-pages.js'
import type { DashboardLanguage } from './dashboard-texts.js'

export type AnyRequest = FastifyRequest<{
  Params: Record<string, string>
  Querystring: Record<string, string | string[] | undefined>
  Body: unknown
}>

export interface Signed {
  user: DashboardUser
  sessionId: string
  sessionHash: string
}

/** what routes registered from here in files of their own share with these (money-routes.ts) */
export interface DashboardRouteKit {
  base: string
  signedIn(request: AnyRequest, reply: FastifyReply, action: DashboardAction): Promise<Signed | null>
  frameOf(request: AnyRequest, signed?: Signed, current?: PageFrame['current']): PageFrame
  html(reply: FastifyReply, code: number, page: string): FastifyReply
  field(body: unknown, name: string): string | undefined
  first(value: string | string[] | undefined): string | undefined
  languageOf(request: AnyRequest): DashboardLanguage
  messagePage: typeof renderMessagePage
}
