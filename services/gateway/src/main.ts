// The gateway deployable: the merchant API and the admin API (packages/gateway).
import { buildGatewayContext, readGatewayConfig } from '@chainpay/gateway'
import { runServiceMain } from '@chainpay/service-kit'

await runServiceMain({ service: 'gateway', readConfig: readGatewayConfig, buildContext: buildGatewayContext })
