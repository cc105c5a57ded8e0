package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.RequestFilterResult;

/**
 * DescribeConfigs of a virtual topic describes its real topic's configuration (retention, compaction, ...), under
 * the virtual name; a hidden topic is unknown. Only describing: altering configs acts on real topics by their
 * real names, for whoever may see them.
 */
final class ConfigsRouting {

    private static final byte TOPIC = ConfigResource.Type.TOPIC.id();

    private final RouteTable routes;

    ConfigsRouting(RouteTable routes) {
        this.routes = routes;
    }

    RequestFilterResult describe(DescribeConfigsRequestData request, Exchange exchange) {
        if (request.resources().stream().noneMatch(r -> r.resourceType() == TOPIC && routes.concerns(r.resourceName()))) {
            return exchange.forward(request);
        }
        // Asked name → real topic (empty when hidden); one resource per real topic goes to the broker.
        Map<String, Optional<String>> asked = new LinkedHashMap<>();
        Map<String, DescribeConfigsRequestData.DescribeConfigsResource> real = new LinkedHashMap<>();
        List<DescribeConfigsRequestData.DescribeConfigsResource> others = new ArrayList<>();
        for (DescribeConfigsRequestData.DescribeConfigsResource resource : request.resources()) {
            if (resource.resourceType() != TOPIC) {
                others.add(resource);
                continue;
            }
            Optional<String> topic = routes.view(resource.resourceName()).map(View::topic);
            asked.put(resource.resourceName(), topic);
            topic.ifPresent(t -> real.putIfAbsent(t, resource.duplicate().setResourceName(t)));
        }
        List<DescribeConfigsRequestData.DescribeConfigsResource> resources = new ArrayList<>(others);
        resources.addAll(real.values());
        request.setResources(resources);
        return exchange.forward(request, message -> {
            DescribeConfigsResponseData response = (DescribeConfigsResponseData) message;
            Map<String, DescribeConfigsResponseData.DescribeConfigsResult> byReal = new LinkedHashMap<>();
            List<DescribeConfigsResponseData.DescribeConfigsResult> results = new ArrayList<>();
            for (DescribeConfigsResponseData.DescribeConfigsResult result : response.results()) {
                if (result.resourceType() == TOPIC) {
                    byReal.put(result.resourceName(), result);
                } else {
                    results.add(result);
                }
            }
            asked.forEach((name, topic) -> {
                DescribeConfigsResponseData.DescribeConfigsResult result = topic.map(byReal::get).orElse(null);
                results.add(result == null
                        ? new DescribeConfigsResponseData.DescribeConfigsResult().setResourceType(TOPIC).setResourceName(name)
                                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage("unknown topic " + name)
                        : result.duplicate().setResourceName(name));
            });
            response.setResults(results);
        });
    }
}
