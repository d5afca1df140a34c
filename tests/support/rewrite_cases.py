"""The plain constraint statements of the recipe tests, and the tables they start from."""

#: The tables every case starts from, with rows, created by an earlier migration.
SETUP = """
CREATE TABLE customers (id bigint PRIMARY KEY, email text);
CREATE TABLE orders (
    id bigint, customer_id bigint, amount int, ref text, note text, code int
);
CREATE TABLE others (x int, CONSTRAINT orders_amount_check CHECK (x > 0));
CREATE TABLE orders_with_a_table_name_long_enough_to_be_cut_by_postgresql_x (
    a_column_name_that_is_also_quite_long_for_an_identifier int
);
CREATE TABLE "commandes_très_détaillées_à_numéro_élevé_déjà_vues" (
    "numéro_de_référence_très_détaillé" int
);
CREATE TABLE pk_parts (
    a_rather_long_shared_column_name_prefix_for_the_key_part_one int,
    a_rather_long_shared_column_name_prefix_for_the_key_part_two int
);
INSERT INTO pk_parts SELECT g, g FROM generate_series(1, 100) g;
CREATE TABLE parted (a int) PARTITION BY RANGE (a);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (100);
INSERT INTO parted VALUES (1), (2);
INSERT INTO customers SELECT g, 'c' || g FROM generate_series(1, 100) g;
INSERT INTO orders
SELECT g, 1 + g % 100, 1 + g % 50, 'r' || g, 'n', g FROM generate_series(1, 2000) g;
"""

#: Each plain statement the runner applies as its recipe.
CASES = {
    "multibyte_names": (
        'ALTER TABLE "commandes_très_détaillées_à_numéro_élevé_déjà_vues" '
        'ADD UNIQUE ("numéro_de_référence_très_détaillé")'
    ),
    "multibyte_names_check": (
        'ALTER TABLE "commandes_très_détaillées_à_numéro_élevé_déjà_vues" '
        'ADD CHECK ("numéro_de_référence_très_détaillé" > 0)'
    ),
    "foreign_key": "ALTER TABLE orders ADD FOREIGN KEY (customer_id) REFERENCES customers (id)",
    "foreign_key_named": (
        "ALTER TABLE orders ADD CONSTRAINT orders_customer FOREIGN KEY (customer_id) "
        "REFERENCES customers (id) ON DELETE CASCADE"
    ),
    "check": "ALTER TABLE orders ADD CHECK (amount > 0)",
    "check_two_columns": "ALTER TABLE orders ADD CHECK (amount > 0 AND code > 0)",
    "not_null": "ALTER TABLE orders ALTER COLUMN note SET NOT NULL",
    "unique": "ALTER TABLE orders ADD UNIQUE (ref)",
    "unique_two_columns_include": "ALTER TABLE orders ADD UNIQUE (ref, code) INCLUDE (amount)",
    "primary_key": "ALTER TABLE orders ADD PRIMARY KEY (id)",
    "long_names": (
        "ALTER TABLE orders_with_a_table_name_long_enough_to_be_cut_by_postgresql_x "
        "ADD UNIQUE (a_column_name_that_is_also_quite_long_for_an_identifier)"
    ),
    # Issue 21 item 10: the helper checks of both nullable columns are cut to the same 63
    # bytes; they must be numbered apart (ChooseConstraintName), where psql succeeds.
    "primary_key_long_shared_prefix": (
        "ALTER TABLE pk_parts ADD PRIMARY KEY ("
        "a_rather_long_shared_column_name_prefix_for_the_key_part_one, "
        "a_rather_long_shared_column_name_prefix_for_the_key_part_two)"
    ),
    "long_names_check": (
        "ALTER TABLE orders_with_a_table_name_long_enough_to_be_cut_by_postgresql_x "
        "ADD CHECK (a_column_name_that_is_also_quite_long_for_an_identifier > 0)"
    ),
}
