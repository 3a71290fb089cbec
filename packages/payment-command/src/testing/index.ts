export * from './log-capture.js'
export * from './pay-finally.js'
export * from './payment-commands-contract.js'
export * from './sqlite-command-side.js'
