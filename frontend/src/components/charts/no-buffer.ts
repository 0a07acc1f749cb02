// Stands in for Node's `buffer` in the browser: typedarray-pool (under plotly's WebGL scatter)
// asks `Buffer.isBuffer` of the arrays it frees, which in a browser are never Node buffers.
export const Buffer = {
  isBuffer(): boolean {
    return false;
  },
};
