// cluster-key-slot (ioredis' own slot function) ships no types.
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0–16383) of a key, honouring its {hash tag}. */
  function calculateSlot(key: string): number;
  export default calculateSlot;
}
