/** The part of node:async_hooks that workerd provides (nodejs_compat) and this project uses. */
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, fn: () => R): R;
    getStore(): T | undefined;
  }
}
