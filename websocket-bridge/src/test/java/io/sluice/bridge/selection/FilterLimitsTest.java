package io.sluice.bridge.selection;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FilterLimitsTest {

    @Test
    void absentSettingsTakeTheDocumentedDefaults() {
        assertThat(FilterLimits.fromYaml(null, null, null, null, null, null, null, null, null)).isEqualTo(FilterLimits.defaults());
        assertThat(FilterLimits.defaults()).isEqualTo(new FilterLimits(64, 8, 256, 1024, 256, 16, 64, 4096, 64));
    }

    @Test
    void validationNamesEveryBadField() {
        List<String> problems = new ArrayList<>();
        new FilterLimits(0, 8, -1, 1024, 256, 16, 64, 0, 0).validate(problems);
        assertThat(problems).containsExactly("filters.maxNodes: must be 1 or more", "filters.maxInList: must be 1 or more",
                "filters.maxFilterChars: must be 1 or more", "filters.maxGroupsPerEndpoint: must be 1 or more");
        problems.clear();
        FilterLimits.defaults().validate(problems);
        assertThat(problems).isEmpty();
    }
}
