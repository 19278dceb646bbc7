// The throttled profile both page benches load under (load.mjs, profile.mjs): one source for its
// numbers and for how a page is put under it.

export const PROFILE = {
  latency: 150,
  // 1.6 Mbit/s down; 750 kbit/s up, a "fast 3G" uplink (only requests go up).
  downloadThroughput: (1.6 * 1000 * 1000) / 8,
  uploadThroughput: (750 * 1000) / 8,
  cpuSlowdown: 4,
};

/** Puts `page` of `context` under PROFILE, the cache off; its CDP session, to listen on. */
export async function throttle(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: PROFILE.latency,
    downloadThroughput: PROFILE.downloadThroughput,
    uploadThroughput: PROFILE.uploadThroughput,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: PROFILE.cpuSlowdown });
  return cdp;
}
