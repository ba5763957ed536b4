// Nothing to call: icu_data.c only defines ICU's data symbol in the container image's build.
