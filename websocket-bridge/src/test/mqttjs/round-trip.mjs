// MQTT.js (npm mqtt 5.x) against the bridge's MQTT over WebSocket listener, for MqttJsTest.
//   node round-trip.mjs URL TOPIC VERSION   (token in SLUICE_TOKEN)
// Subscribes TOPIC/live/# (QoS 1) and TOPIC/secret, publishes QoS 1 to TOPIC/live/js and waits for it to come back
// through Kafka; prints one JSON line: the SUBACK grants, every message (topic, payload, qos, retain) and the PUBACK.
import mqtt from 'mqtt';

const [url, topic, version] = process.argv.slice(2);
const client = mqtt.connect(url, {
  protocolVersion: Number(version), username: 'device', password: process.env.SLUICE_TOKEN,
  clientId: 'mqttjs-' + version, reconnectPeriod: 0, connectTimeout: 10000,
});
const received = [];
const timer = setTimeout(() => finish({ error: 'timed out', received }), 30000);
function finish(result) {
  clearTimeout(timer);
  console.log('RESULT ' + JSON.stringify(result));
  client.end(true, () => process.exit(0));
}
client.on('error', (e) => finish({ error: String(e), received }));
client.on('message', (t, payload, packet) => {
  received.push({ topic: t, payload: payload.toString('utf8'), qos: packet.qos, retain: packet.retain });
  if (t === topic + '/live/js') {
    finish({ granted, received, puback });
  }
});
let granted;
let puback;
client.on('connect', () => {
  client.subscribe([topic + '/live/#', topic + '/secret'], { qos: 1 }, (err, grants) => {
    // A refused filter makes MQTT.js report an error carrying the SUBACK; its codes are the grants.
    granted = err && err.packet ? err.packet.granted : (grants || []).map((g) => g.qos);
    client.publish(topic + '/live/js', JSON.stringify({ from: 'mqtt.js' }), { qos: 1 }, (e, packet) => {
      puback = e ? String(e) : 'ok';
    });
  });
});
