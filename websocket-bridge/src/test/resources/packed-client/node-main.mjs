// Under Node: `node node-main.mjs URL TOKEN TOPIC` in the scratch project where the packed tarball was installed.
// Prints one JSON line: the round trip's result.
import * as client from 'sluice-bridge-client';
import { roundTrip } from './round-trip.mjs';

const [url, token, topic] = process.argv.slice(2);
const result = await roundTrip(client, { url, token, topic });
process.stdout.write(JSON.stringify(result) + '\n');
