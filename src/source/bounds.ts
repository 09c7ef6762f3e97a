/**
 * The physical bounds of every stored column (docs/data.md: "Bounds"). A file with any value
 * outside them is refused whole before it touches the store: a value that cannot be true means
 * the file's columns are not what their names say (the portal's scrambled publication of
 * 2023-04-24 put about 22 GW under nuclear, where Koeberg's two units are 1,940 MW).
 *
 * The bounds come from the plant and the grid, never from fitting the data: installed
 * capacities with room for the builds planned to 2030, interconnector ratings, and signs. Every
 * floor that is physically 0 is -100 MW, because metering and rounding read a little below zero
 * (the 2020-2022 export has manual load reduction at -0.104 MW). A bound is meant to catch a
 * value in the wrong column, which is wrong by gigawatts or by its sign, not a value that is
 * merely unusual.
 */

/** One column's bounds, inclusive, in its unit, and where they come from. */
export interface Bound {
  readonly min: number;
  readonly max: number;
  readonly unit: "MW" | "h";
  readonly why: string;
}

const NOISE = -100;
const DEMAND: Bound = {
  min: 5_000,
  max: 60_000,
  unit: "MW",
  why: "national demand: its record peak is under 37 GW and its lowest night under 14 GW (the 2020 lockdown); below 5 GW the grid would be in a national blackout",
};
const LOST: Bound = {
  min: NOISE,
  max: 60_000,
  unit: "MW",
  why: "capacity out of service cannot pass the installed capacity (Eskom's about 47 GW)",
};
const SCO: Bound = {
  min: -500,
  max: 100,
  unit: "MW",
  why: "a synchronous condenser draws a few MW per unit; negative is consumption",
};
const LEVEL: Bound = {
  min: -1,
  max: 200,
  unit: "h",
  why: "hours of generation left in a pumped-storage reservoir: Drakensberg's full reservoir is 102 h, the others less",
};

const LIMIT: Bound = {
  min: 0,
  max: 200,
  unit: "h",
  why: "a pumped-storage reservoir's upper or lower operating limit, in hours of generation: Drakensberg's full reservoir is 102 h, the others less",
};

const BOUNDS: Readonly<Record<string, Bound>> = {
  original_res_forecast_before_lockdown: DEMAND,
  residual_forecast: DEMAND,
  rsa_contracted_forecast: DEMAND,
  dispatchable_generation: DEMAND,
  residual_demand: DEMAND,
  rsa_contracted_demand: DEMAND,
  international_exports: {
    min: NOISE,
    max: 6_000,
    unit: "MW",
    why: "the interconnectors to Mozambique, Botswana, Namibia, Zimbabwe, Eswatini and Lesotho together",
  },
  international_imports: {
    min: NOISE,
    max: 5_000,
    unit: "MW",
    why: "Cahora Bassa's HVDC link (1,920 MW) carries almost all imports; every interconnector at its rating stays under 5 GW",
  },
  thermal_generation: {
    min: NOISE,
    max: 50_000,
    unit: "MW",
    why: "Eskom's coal fleet, about 40 GW with Medupi and Kusile",
  },
  thermal_gen_excl_pumping_and_sco: {
    min: NOISE,
    max: 50_000,
    unit: "MW",
    why: "Eskom's coal fleet, about 40 GW with Medupi and Kusile",
  },
  nuclear_generation: {
    min: NOISE,
    max: 2_000,
    unit: "MW",
    why: "Koeberg's two units, 1,940 MW",
  },
  eskom_gas_generation: {
    min: NOISE,
    max: 4_000,
    unit: "MW",
    why: "Eskom's gas turbines (Ankerlig, Gourikwa, Acacia, Port Rex: 2,426 MW), with room for Ankerlig's conversion to gas",
  },
  eskom_ocgt_generation: {
    min: NOISE,
    max: 4_000,
    unit: "MW",
    why: "Eskom's open-cycle gas turbines (Ankerlig, Gourikwa, Acacia, Port Rex: 2,426 MW)",
  },
  dispatchable_ipp_ocgt: {
    min: NOISE,
    max: 4_000,
    unit: "MW",
    why: "the peaking IPPs Avon and Dedisa (1,005 MW), with room for the gas-to-power IPPs procured since",
  },
  hydro_water_generation: {
    min: NOISE,
    max: 1_000,
    unit: "MW",
    why: "Gariep (360 MW), Vanderkloof (240 MW) and the small hydro stations",
  },
  pumped_water_generation: {
    min: -4_000,
    max: 4_000,
    unit: "MW",
    why: "Drakensberg (1,000 MW), Palmiet (400 MW) and Ingula (1,332 MW) generating, or pumping (about 2,900 MW): the 2026 files write net output, negative at night",
  },
  ils_usage: {
    min: NOISE,
    max: 5_000,
    unit: "MW",
    why: "interruptible load contracted with large customers, about 1 GW",
  },
  manual_load_reduction_mlr: {
    min: NOISE,
    max: 20_000,
    unit: "MW",
    why: "load shedding: stage 8 is about 8,000 MW, and no schedule goes past stage 16",
  },
  ios_excl_ils_and_mlr: {
    min: -2_000,
    max: 5_000,
    unit: "MW",
    why: "other interruptions of supply; negative values are curtailment",
  },
  eskom_gas_sco: SCO,
  eskom_ocgt_sco: SCO,
  hydro_water_sco: SCO,
  eskom_ocgt_sco_pumping: SCO,
  eskom_gas_sco_pumping: SCO,
  hydro_water_sco_pumping: SCO,
  pumped_water_sco_pumping: {
    min: -4_000,
    max: 100,
    unit: "MW",
    why: "pumping load of Drakensberg, Palmiet and Ingula, about 2,900 MW; negative is consumption",
  },
  wind: {
    min: NOISE,
    max: 30_000,
    unit: "MW",
    why: "installed wind, 3.4 GW in 2023, with room for the 17.7 GW the IRP 2019 plans by 2030",
  },
  pv: {
    min: NOISE,
    max: 30_000,
    unit: "MW",
    why: "installed utility PV, 2.3 GW in 2023, with room for the builds planned to 2030",
  },
  csp: {
    min: NOISE,
    max: 1_000,
    unit: "MW",
    why: "six concentrated solar plants, 500 MW (the IRP 2019 plans 600 MW)",
  },
  other_re: {
    min: NOISE,
    max: 2_000,
    unit: "MW",
    why: "landfill gas, biomass and small hydro, under 100 MW installed",
  },
  total_re: {
    min: 4 * NOISE,
    max: 60_000,
    unit: "MW",
    why: "the sum of wind, PV, CSP and other renewables",
  },
  wind_installed_capacity: {
    min: 0,
    max: 30_000,
    unit: "MW",
    why: "as for wind",
  },
  pv_installed_capacity: { min: 0, max: 30_000, unit: "MW", why: "as for PV" },
  csp_installed_capacity: { min: 0, max: 1_000, unit: "MW", why: "as for CSP" },
  other_re_installed_capacity: { min: 0, max: 2_000, unit: "MW", why: "as for other renewables" },
  total_re_installed_capacity: {
    min: 0,
    max: 60_000,
    unit: "MW",
    why: "the sum of the four installed capacities",
  },
  installed_eskom_capacity: {
    min: 0,
    max: 60_000,
    unit: "MW",
    why: "Eskom's installed capacity, about 47 GW",
  },
  total_pclf: LOST,
  total_uclf: LOST,
  total_oclf: LOST,
  total_uclf_oclf: LOST,
  non_comm_sentout: {
    min: NOISE,
    max: 10_000,
    unit: "MW",
    why: "units not yet commercially operating (Medupi's and Kusile's last units), under 10 GW",
  },
  drakensberg_gen_unit_hours: LEVEL,
  palmiet_gen_unit_hours: LEVEL,
  ingula_gen_unit_hours: LEVEL,
  available_capacity_incl_non_comm_units: {
    min: NOISE,
    max: 60_000,
    unit: "MW",
    why: "what is available of Eskom's installed capacity (about 47 GW) and of the units not yet commercial",
  },
  available_capacity_incl_non_comm_units_incl_total_re: {
    min: NOISE,
    max: 120_000,
    unit: "MW",
    why: "the available capacity above plus the renewables' output (each under 60 GW)",
  },
  hourly_uclf_oclf: LOST,
  drakensberg_max_hours: LIMIT,
  palmiet_max_hours: LIMIT,
  ingula_max_hours: LIMIT,
  drakensberg_min_hours: LIMIT,
  palmiet_min_hours: LIMIT,
  ingula_min_hours: LIMIT,
};

/** The bounds of a catalog column; throws for a column without any (a programming error). */
export function boundOf(column: string): Bound {
  const bound = BOUNDS[column];
  if (bound === undefined) throw new RangeError(`Column "${column}" has no bounds`);
  return bound;
}

/** Every column's bounds, in the catalog's order (for the docs). */
export function allBounds(): ReadonlyMap<string, Bound> {
  return new Map(Object.entries(BOUNDS));
}
