export * from './admin-api.js'
export * from './commands.js'
export * from './sweep-plan.js'
export * from './sweep-rules.js'
